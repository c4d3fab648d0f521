"""Connect to one server on its own, for one-shot commands (check a tool name, call a tool).

The headless command line does not need a whole bridge to call one tool of one server; it
runs a single supervised session, uses it, and stops it, with the same error text and process
hygiene as the bridge.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import ServerConfig

__all__ = ["open_server"]


@asynccontextmanager
async def open_server(config: ServerConfig, log_dir: Path) -> AsyncIterator[ServerSession]:
    """A session of ``config``'s server, yielded once it is connected or has failed."""
    session = ServerSession(config, ServerLog(log_dir, config.name), lambda: None)
    async with anyio.create_task_group() as group:
        group.start_soon(session.run)
        try:
            await session.settled.wait()
            yield session
        finally:
            session.stop()
