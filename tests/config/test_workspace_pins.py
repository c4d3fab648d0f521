"""Pins in a workspace: written into agentty's own file; a server of a host's file is refused
with the reason, every file left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentty_tui.config.engine import AddServer, SetServerPriority, SetToolPinned
from agentty_tui.config.workspace import open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import StdioSpec
from tests.fake_home import LAYERED, build_fake_home


def test_a_pin_goes_to_our_file_and_a_hosts_file_refuses_it(tmp_path: Path) -> None:
    fake = build_fake_home(tmp_path)
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.apply(AddServer(name="ours", spec=StdioSpec(command="true")))
    config = workspace.apply(
        [
            SetToolPinned(server="ours", tool="add", pinned=True),
            SetServerPriority(server="ours", priority=1),
        ]
    )
    ours = config.server("ours")
    assert ours is not None and ours.tools.pin == ("add",) and ours.priority == 1
    before = fake.snapshot()
    with pytest.raises(OperationError, match="only agentty's own files hold them"):
        workspace.apply(SetToolPinned(server=LAYERED, tool="x", pinned=True))
    assert fake.snapshot() == before
