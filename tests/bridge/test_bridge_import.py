"""The bridge's import of another host's servers (the picker's ``i``): the bridge plans it,
writes the config itself, then reloads, so the servers added appear in its snapshots.

Real files and real stdio servers (``light_plain_server.py``): a Codex ``config.toml`` is imported
into one config file, a folder's ``.mcp.json`` comes disabled, and a workspace imports into our
user file.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config.discover import HostFile
from agentty_tui.config.workspace import open_workspace
from agentty_tui.model import StdioSpec
from tests.bridge.test_live_reload import TIMEOUT
from tests.fake_home import small_fake_home
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio


def _toml_entry(name: str, argv: list[str]) -> str:
    # JSON strings are TOML basic strings for these paths.
    args = ", ".join(json.dumps(arg) for arg in argv[1:])
    return f"[mcp_servers.{name}]\ncommand = {json.dumps(argv[0])}\nargs = [{args}]\n"


def _servers_in(path: Path) -> dict[str, object]:
    servers: dict[str, object] = json.loads(path.read_text())["mcpServers"]
    return servers


@pytest.fixture
def codex(tmp_path: Path) -> HostFile:
    """A Codex config with two real servers, ``alpha`` and ``beta``."""
    path = tmp_path / "home" / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    text = _toml_entry("alpha", plain_argv("--name", "alpha"))
    path.write_text(text + "\n" + _toml_entry("beta", plain_argv("--name", "beta")))
    return HostFile("Codex", path, "codex", 2)


async def test_the_bridge_writes_an_import_then_reloads_and_the_servers_start(
    tmp_path: Path, codex: HostFile
) -> None:
    target = tmp_path / "mine" / "mcp.json"
    codex_before = codex.path.read_bytes()
    async with Bridge.on_file(target, log_dir=tmp_path / "logs") as bridge:
        assert bridge.import_target() == target
        assert bridge.config_files() == (target,)
        assert bridge.add_targets() == (bridge.store.add_to,)  # one file: no choice
        prepared = await bridge.import_plan(codex)
        assert (prepared.source, prepared.target) == (codex, target)
        assert [server.name for server in prepared.plan.add] == ["alpha", "beta"]
        assert not target.exists()  # a plan writes nothing
        with anyio.fail_after(TIMEOUT):
            result, report = await bridge.import_servers(prepared)
        assert (result.added, result.failed) == (("alpha", "beta"), ())
        assert report.reloaded and report.added == ("alpha", "beta")
        statuses = {s.name: s.status for s in bridge.snapshot.servers}
        assert statuses == {"alpha": "connected", "beta": "connected"}
    written = json.loads(target.read_text())["mcpServers"]
    assert sorted(written) == ["alpha", "beta"]
    assert written["alpha"]["args"][-2:] == ["--name", "alpha"]
    assert codex.path.read_bytes() == codex_before


async def test_a_name_taken_since_the_plan_is_refused_and_the_rest_is_imported(
    tmp_path: Path, codex: HostFile
) -> None:
    target = tmp_path / "mcp.json"
    async with Bridge.on_file(target, log_dir=tmp_path / "logs") as bridge:
        prepared = await bridge.import_plan(codex)
        argv = plain_argv("--name", "mine")
        await bridge.plugin_add("alpha", StdioSpec(command=argv[0], args=tuple(argv[1:])))
        with anyio.fail_after(TIMEOUT):
            result, report = await bridge.import_servers(prepared)
        assert result.added == ("beta",)
        assert [name for name, _ in result.failed] == ["alpha"]
        assert report.added == ("beta",)
    written = json.loads(target.read_text())["mcpServers"]
    assert written["alpha"]["args"][-2:] == ["--name", "mine"]  # never overwritten


async def test_a_projects_file_is_imported_disabled_and_starts_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    argv = plain_argv("--name", "gamma")
    entry = {"command": argv[0], "args": argv[1:]}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"gamma": entry}}))
    found = HostFile("Claude Code", folder / ".mcp.json", "claude", 1, project=True)
    target = tmp_path / "mcp.json"
    async with Bridge.on_file(target, log_dir=tmp_path / "logs") as bridge:
        prepared = await bridge.import_plan(found)
        assert [server.disabled for server in prepared.plan.add] == [True]
        with anyio.fail_after(TIMEOUT):
            result, _ = await bridge.import_servers(prepared)
        assert result.added == ("gamma",)
        assert [s.status for s in bridge.snapshot.servers] == ["disabled"]
        assert bridge.server_pid("gamma") is None
    assert json.loads(target.read_text())["mcpServers"]["gamma"]["disabled"] is True


async def test_a_workspace_imports_into_our_user_file(tmp_path: Path, codex: HostFile) -> None:
    fake = small_fake_home(tmp_path / "fake", sources=["agentty-user"])
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    ours = Path(workspace.add_to.path)
    async with Bridge(workspace, log_dir=tmp_path / "logs") as bridge:
        assert bridge.import_target() == ours
        assert ours in bridge.config_files()
        targets = bridge.add_targets()
        assert targets is not None and targets[0] == workspace.add_to
        with anyio.fail_after(TIMEOUT):
            result, _ = await bridge.import_servers(await bridge.import_plan(codex))
        assert result.added == ("alpha", "beta")
        for name in ("alpha", "beta"):
            server = bridge.snapshot.server(name)
            assert server is not None and server.status == "connected"
            assert server.source == workspace.add_to
    assert {"alpha", "beta"} <= set(_servers_in(ours))
