"""Connect to one server on its own, for one-shot commands (check a tool name, call a tool).

The headless command line does not need a whole bridge to call one tool of one server; it
runs a single supervised session, uses it, and stops it, with the same error text and process
hygiene as the bridge. What the caller's block raises comes out as it was raised, not wrapped
in the exception group of the task group that runs the session.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
from mcp.client.session import ElicitationFnT

from agentty_tui.bridge.auth import LoginUI
from agentty_tui.bridge.early import EarlyStarts
from agentty_tui.bridge.logs import ServerLog
from agentty_tui.bridge.session import ServerSession
from agentty_tui.model import ServerConfig

__all__ = ["open_server"]


@asynccontextmanager
async def open_server(
    config: ServerConfig,
    log_dir: Path,
    config_path: str | os.PathLike[str] | None = None,
    *,
    elicitation: ElicitationFnT | None = None,
    login_ui: LoginUI | None = None,
    early: EarlyStarts | None = None,
    roots: tuple[types.Root, ...] | None = None,
) -> AsyncIterator[ServerSession]:
    """A session of ``config``'s server, yielded once it is connected or has failed.

    ``config_path`` is the file the entry is from: with it, the server writes the same log
    file as under a bridge of that file; ``early``: where its process may have been started
    already (before the SDK was imported), and stays until the session takes it; ``roots``:
    what the server gets when it asks for roots (the capability is declared with them; a
    bridge's are ``bridge.roots.server_roots``), ``None``: roots are not offered.

    An exception raised in the ``async with`` block (an unknown tool, a failed call) leaves it
    as itself: the session's task never raises, so the task group's exception group can only
    hold the block's error, and it is unwrapped here where the group is made.
    """
    log = ServerLog(log_dir, config.name, config_path)
    offered = roots

    async def answer_roots() -> tuple[types.Root, ...]:
        return offered or ()

    session = ServerSession(
        config,
        log,
        lambda _state: None,
        elicitation=elicitation,
        login_ui=login_ui,
        roots=None if roots is None else answer_roots,
        early=early,
    )
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(session.run)
            try:
                await session.settled.wait()
                yield session
            finally:
                session.stop()
    except BaseExceptionGroup as group_error:
        sole = _sole_exception(group_error)
        if sole is None:
            raise
        raise sole from sole.__cause__


def _sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The one exception inside (nested) groups, or ``None`` when there are several."""
    found: BaseException = group
    while isinstance(found, BaseExceptionGroup):
        if len(found.exceptions) != 1:
            return None
        found = found.exceptions[0]
    return found
