"""Where the gateway's bridge lives for ``agentty-tui serve``: in the serving process itself.

``serve_stdio`` claims the process's stdin and stdout for the MCP protocol first
(``stdio.host_pipe``: while it serves, descriptor 1 points at stderr and 0 at the null device,
so no stray write of ours or of a library reaches the host's pipe), then opens a ``Bridge`` on
the workspace, watches its files (a toggle from another process, an outside edit: the
bridge's live reload), and serves one ``HostServer`` until the host closes stdin. Leaving
closes the bridge, which stops every server it started (the command runs under
``shutdown.run_command``: a signal takes the same way out, and no process outlives it).

Logs go where the bridge's always go (``bridge.logs``: the app's log file and each server's),
never to the host's stderr.
"""

from __future__ import annotations

import anyio

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import Workspace
from agentty_tui.gateway.host.server import DEFAULT_WAIT, HostServer
from agentty_tui.gateway.stdio.pipe import host_pipe

__all__ = ["serve_stdio"]


async def serve_stdio(
    workspace: Workspace,
    host: str | None = None,
    trust: bool = False,
    wait: float = DEFAULT_WAIT,
) -> int:
    """Serve ``host``'s view of ``workspace`` over stdin and stdout until stdin ends; the exit
    status (0)."""
    # stdio first: from here on only the protocol reaches the host's stdout.
    async with (
        host_pipe() as (read_stream, write_stream),
        Bridge(workspace, trust=trust) as bridge,
        anyio.create_task_group() as group,
    ):
        await group.start(bridge.watch)
        await HostServer(bridge, host, wait=wait, offers=bridge).serve(read_stream, write_stream)
        group.cancel_scope.cancel()
    return 0
