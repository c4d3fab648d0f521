"""The gateway: agentty as the one MCP server a host runs, serving the workspace's tools.

``agentty-tui serve`` is a stdio MCP server a host starts; it runs a bridge of its own over
the workspace of the folder it is started in and serves one host's view of it. Two parts,
kept apart so that a daemon can later hold the bridge for every host: :mod:`.server` is what
one attached host sees and calls (over any stream pair, from any ``GatewaySource``);
:mod:`.serve` is where the bridge lives (this process, over stdio: :mod:`.stdio`, the host's
pipe). :mod:`.host_tools` makes one host's tool list from a snapshot, :mod:`.naming` its tool
names.

Above the catalog, beside the picker (``ui``): it never imports Textual.
"""
