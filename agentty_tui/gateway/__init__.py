"""The gateway: agentty as the one MCP server a host runs, serving the workspace's tools.

A host starts ``agentty-tui serve`` as its only MCP server and sees agentty's wire catalog of
its project's workspace; a toggle reaches it as ``tools/list_changed``. Its parts, each a
package, from the bottom up:

- :mod:`.host`: what one attached host is served, over any stream pair, from any source of
  snapshots: its tools by gateway name, their calls, what servers ask during them, and what
  passes through besides tools (resources, prompts, logs, subscriptions).
- :mod:`.picker`: what a picker attached to the daemon speaks and shows: the line protocol,
  the view of the daemon, and the picker's source of snapshots over that link.
- :mod:`.stdio`: the host's pipe; ``serve`` with a bridge of its own, and ``serve --shared``,
  the pipe joined to the user's daemon.
- :mod:`.http`: ``serve --http``: Streamable HTTP on 127.0.0.1, its token, and
  ``serve --http --shared``.
- :mod:`.daemon`: the user's gateway daemon: one bridge a workspace, shared by every attached
  host and picker; who is attached; the picker's service.

:mod:`.rendezvous` (where the daemon listens, who may talk to it) and :mod:`.attachment`
(what an attaching process says first) are what every part shares.

Above the catalog, beside the picker (``ui``): it never imports Textual.
"""
