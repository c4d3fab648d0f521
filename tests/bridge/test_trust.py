"""A config file others can change does not start its stdio servers until the user trusts it.

Real files with real modes and owners, a real stdio server (``light_plain_server.py``) and a real
HTTP one: the stdio server's process must not exist before the trust, and must connect after.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.bridge import UNTRUSTED_ERROR
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from agentty_tui.model import PluginModel
from tests.helpers import serve_over_http, stdio_entry, url_entry, wait_until_gone
from tests.servers import plain_argv, plain_sdk_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 20.0


def untrusted_message(path: Path, mode: int = 0o666) -> str:
    """What the app says about a config file that other users can write."""
    return (
        f"{path} is writable by other users (mode {mode:04o}): its commands are not run until "
        f"you trust it (chmod o-w {path}, or T in the picker / --trust)"
    )


def plain_children() -> list[int]:
    """PIDs of stdio ``light_plain_server.py`` processes that are children of this test process (the
    HTTP one, run with ``--transport``, is not)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        stdio = b"light_plain_server.py" in cmdline and b"--transport" not in cmdline
        if parent == os.getpid() and stdio:
            found.append(int(entry.name))
    return found


@pytest.fixture
def web_url() -> Iterator[str]:
    """A plain server over Streamable HTTP (it runs nothing of the config's)."""
    with serve_over_http(plain_sdk_argv("--name", "web"), "streamable-http") as url:
        yield url


def write_config(tmp_path: Path, mode: int, web_url: str | None = None) -> Path:
    servers: dict[str, object] = {"plain": stdio_entry(plain_argv())}
    if web_url is not None:
        servers["web"] = url_entry("streamable-http", web_url)
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    path.chmod(mode)
    return path


def status(model: PluginModel, name: str) -> str:
    state = model.server(name)
    assert state is not None
    return state.status


async def test_a_world_writable_config_holds_back_its_stdio_servers_until_trusted(
    tmp_path: Path, web_url: str
) -> None:
    path = write_config(tmp_path, 0o666, web_url)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        assert status(model, "plain") == "untrusted"
        assert status(model, "web") == "connected"  # a URL server runs no command here
        plain = model.server("plain")
        assert plain is not None and plain.error == UNTRUSTED_ERROR and plain.pid is None
        assert model.config_untrusted == untrusted_message(path)
        assert bridge.server_pid("plain") is None
        assert plain_children() == []
        with pytest.raises(OperationError, match=r"not started: the config file is not trusted"):
            await bridge.restart("plain")
        assert plain_children() == []

        await bridge.trust_config()
        with anyio.fail_after(TIMEOUT):
            model = await bridge.wait_for(lambda m: status(m, "plain") == "connected")
        assert model.config_untrusted is None
        assert bridge.server_pid("plain") in plain_children()
        # Trust holds for the rest of this bridge's life: a reload does not take it back.
        await bridge.reload()
        assert status(bridge.snapshot, "plain") == "connected"
    assert plain_children() == []


async def test_a_config_only_its_owner_can_write_starts_without_asking(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o644)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        assert status(model, "plain") == "connected"
        assert model.config_untrusted is None


async def test_fixing_the_mode_and_reloading_starts_the_server(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        assert status(bridge.snapshot, "plain") == "untrusted"
        path.chmod(0o644)
        with anyio.fail_after(TIMEOUT):
            await bridge.reload()
        model = bridge.snapshot
        assert status(model, "plain") == "connected"
        assert model.config_untrusted is None


async def test_a_config_made_world_writable_stops_its_stdio_servers_on_reload(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, 0o644)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            await bridge.settled()
        pid = bridge.server_pid("plain")
        assert pid is not None
        path.chmod(0o646)
        with anyio.fail_after(TIMEOUT):
            await bridge.reload()
        model = bridge.snapshot
        assert status(model, "plain") == "untrusted"
        assert model.config_untrusted == untrusted_message(path, 0o646)
        await wait_until_gone(pid)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
async def test_a_config_owned_by_another_user_is_not_trusted(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o644)
    os.chown(path, 4321, 4321)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        assert status(model, "plain") == "untrusted"
        assert model.config_untrusted == (
            f"{path} belongs to another user (uid 4321): its commands are not run until you "
            "trust it (chown it to yourself, or T in the picker / --trust)"
        )
        assert plain_children() == []


async def test_trust_given_up_front_starts_everything(tmp_path: Path) -> None:
    path = write_config(tmp_path, 0o666)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs", trust=True) as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        assert status(model, "plain") == "connected"
        assert model.config_untrusted is None


async def test_an_env_file_others_can_write_holds_back_the_servers_too(tmp_path: Path) -> None:
    # The variables decide what a command does (PATH, LD_PRELOAD): the env file is trusted
    # like the config that names it.
    folder = tmp_path / ".vscode"
    folder.mkdir()
    env_file = tmp_path / "plain.env"
    env_file.write_text("GREETING=hi\n")
    env_file.chmod(0o666)
    argv = plain_argv()
    entry = {"type": "stdio", "command": argv[0], "args": argv[1:], "envFile": str(env_file)}
    path = folder / "mcp.json"
    path.write_text(json.dumps({"servers": {"plain": entry}}))
    path.chmod(0o644)
    async with Bridge(ConfigStore(path), log_dir=tmp_path / "logs") as bridge:
        with anyio.fail_after(TIMEOUT):
            model = await bridge.settled()
        assert status(model, "plain") == "untrusted"
        assert model.config_untrusted == untrusted_message(env_file)
        assert plain_children() == []
        env_file.chmod(0o600)
        with anyio.fail_after(TIMEOUT):
            await bridge.reload()
        assert status(bridge.snapshot, "plain") == "connected"
