"""The bridge on a workspace: project servers held back until trusted (on disk, or for the run
for a file others can write), and a server added to a file named on purpose.

A fake home (``tests/fake_home.py``) with real stdio servers (``light_plain_server.py``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import open_workspace
from agentty_tui.errors import OperationError
from agentty_tui.model import StdioSpec
from tests.bridge.test_live_reload import TIMEOUT, connected
from tests.fake_home import REPO_TOOL, FakeHome, build_fake_home, small_fake_home

pytestmark = pytest.mark.anyio


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return small_fake_home(tmp_path)


async def test_a_project_server_starts_once_trusted_and_stays_trusted(
    fake: FakeHome, tmp_path: Path
) -> None:
    async with Bridge(
        open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
    ) as bridge:
        repo = bridge.snapshot.server(REPO_TOOL)
        assert repo is not None and repo.status == "untrusted" and repo.pid is None
        assert repo.error is not None and "T to trust" in repo.error
        await bridge.trust_servers([REPO_TOOL])
        await bridge.wait_for(connected(REPO_TOOL), TIMEOUT)
    async with Bridge(
        open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
    ) as again:
        await again.wait_for(connected(REPO_TOOL), TIMEOUT)


async def test_a_user_file_others_can_write_is_trusted_for_the_run_only(tmp_path: Path) -> None:
    fake = build_fake_home(
        tmp_path,
        sources=["agentty-user"],
        layered=False,
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
    )
    ours = fake.files["agentty-user"]
    ours.chmod(0o666)
    name = fake.servers["agentty-user"][0]
    for run in ("first", "second"):
        bridge = Bridge(
            open_workspace(fake.cwd, home=fake.home, env=fake.env), log_dir=tmp_path / "logs"
        )
        async with bridge:
            state = bridge.snapshot.server(name)
            assert state is not None and state.status == "untrusted", run
            assert state.error is not None and "writable by other users" in state.error
            await bridge.trust_servers([name])
            await bridge.wait_for(connected(name), TIMEOUT)


async def test_the_picker_may_add_a_name_of_another_file_to_a_file_named_on_purpose(
    fake: FakeHome, tmp_path: Path
) -> None:
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    taken = fake.servers["agentty-user"][0]
    spec = StdioSpec(command=sys.executable, args=("-c", "pass"))
    async with Bridge(workspace, log_dir=tmp_path / "logs") as bridge:
        with pytest.raises(OperationError, match="already exists"):
            await bridge.plugin_add(taken, spec)
        project = next(s.ref for s in workspace.sources if s.path == fake.files["project-mcp"])
        model = await bridge.plugin_add(taken, spec, source=project)
        # Two hosts, two servers of one name: Claude Code runs the project's, we run ours.
        winner = model.server(taken)
        assert winner is not None and winner.source == project
        ours = model.server(f"{taken}@agentty")
        assert ours is not None and ours.source == workspace.add_to and ours.entry == taken
        assert not [s for s in model.shadowed if (s.entry or s.name) == taken]


async def test_removing_an_entry_of_a_file_without_it_is_refused_and_writes_nothing(
    fake: FakeHome, tmp_path: Path
) -> None:
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    ours = fake.servers["agentty-user"][0]
    project = next(s.ref for s in workspace.sources if s.path == fake.files["project-mcp"])
    before = fake.snapshot()
    async with Bridge(workspace, log_dir=tmp_path / "logs") as bridge:
        await bridge.wait_for(connected(ours), TIMEOUT)
        pid = bridge.snapshot.server(ours).pid  # type: ignore[union-attr]
        said = f"'{ours}' is not in {project.path} (project .mcp.json); it is in: "
        with pytest.raises(OperationError, match=re.escape(said)):
            await bridge.plugin_remove(ours, source=project)
        assert bridge.snapshot.server(ours).pid == pid  # type: ignore[union-attr]
    assert fake.snapshot() == before
