"""``serve`` as a host's entry runs it: attached to the user's gateway daemon by default
(``gateway/stdio/shared``), ``--no-daemon`` for a bridge of its own, and the options that do not
go with the daemon's way refused before any daemon is asked."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from agentty_tui.gateway.rendezvous import rendezvous
from tests.gateway.daemon.test_process import config, daemon_gone, environment, text_of

__all__ = ["config"]  # the fixture, shared with the daemon's tests

pytestmark = pytest.mark.anyio


async def test_a_plain_serve_attaches_to_the_daemon_and_shares_its_server(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """Two hosts whose entry is just ``serve --config F`` (no ``--shared``): one daemon starts,
    and both reach one process of the server."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentty_tui", "serve", "--config", str(config)],
        env=environment(runtime),
        cwd=tmp_path,
    )
    async with (
        Client(params, mode="legacy", cache=None) as one,
        Client(params, mode="legacy", cache=None) as two,
    ):
        first = text_of(await one.call_tool("alpha__pid", {}))
        assert text_of(await two.call_tool("alpha__pid", {})) == first
        assert rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.is_file()
    await daemon_gone(runtime)


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--host", "claude"], "--host chooses a host of a workspace; --config is one file"),
        (["--shared", "--no-daemon"], "--shared and --no-daemon exclude each other"),
        (
            ["--http", "--host", "cursor"],
            "--host chooses a host of a workspace; --config is one file",
        ),
    ],
)
async def test_what_does_not_go_together_is_refused_before_a_daemon_is_asked(
    config: Path, runtime: Path, words: list[str], said: str
) -> None:
    argv = [sys.executable, "-m", "agentty_tui", "serve", "--config", str(config), *words]
    with anyio.fail_after(60):
        done = await anyio.run_process(argv, env=environment(runtime), check=False)
    assert (done.returncode, done.stderr.decode(), done.stdout) == (
        2,
        f"agentty-tui: {said}\n",
        b"",
    )
    assert not rendezvous({"XDG_RUNTIME_DIR": str(runtime)}).pid.exists()
