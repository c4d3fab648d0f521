"""What one attached host is served: an MCP server over any stream pair, from snapshots.

:mod:`.server` is the host's MCP server; :mod:`.tools` makes its tool list, :mod:`.naming`
the names; :mod:`.requests` and :mod:`.rounds` carry what a server asks during a host's call;
:mod:`.passthrough` gathers resources, prompts, log messages and subscriptions, each in a
module of its own; :mod:`.offers` is what they need of the bridge.
"""
