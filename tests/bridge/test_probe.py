"""The commands' one-shot connection: ``open_server`` yields a settled session and lets an
error of its caller's block out as itself."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge.probe import open_server
from agentty_tui.config import ConfigStore
from agentty_tui.errors import UnknownToolError
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import light_argv

pytestmark = pytest.mark.anyio


async def test_an_error_in_the_block_leaves_as_itself_not_in_an_exception_group(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """A command that raises inside the block (an unknown tool, a refused call) must reach the
    command line's one-line error handling, not show an ExceptionGroup traceback."""
    path = write_config({"light": stdio_entry(light_argv(2))})
    config = ConfigStore(path).load().server("light")
    assert config is not None
    caught: BaseException | None = None
    with anyio.fail_after(30):
        try:
            async with open_server(config, log_dir) as session:
                assert session.state.status == "connected", session.state.error
                raise UnknownToolError("light", "nope", [t.name for t in session.state.tools])
        except BaseException as error:  # whatever leaves the block, a group included
            caught = error
    assert isinstance(caught, UnknownToolError), repr(caught)
    assert "no tool named 'nope'" in str(caught)
