"""Resources, prompts and log messages through ``agentty-tui serve``, as a host gets them.

The host is the mcp SDK's client over stdio (both protocol eras); the servers are real
processes: ``offers_server.py`` (2026-07-28: its changes on ``subscriptions/listen``) and
``legacy_ts/offers.js`` (the TypeScript SDK, 2025 handshake: its changes as notifications,
and log messages).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import ElicitationFnT, IncomingMessage
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import environment as daemon_environment
from tests.gateway.hosts import MODES
from tests.gateway.stdio.test_serve import environment, serve_argv, toggle
from tests.helpers import stdio_entry
from tests.servers import legacy_offers_argv, legacy_ts_available, offers_argv

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not legacy_ts_available(), reason="needs node and npm ci in tests/servers/legacy_ts"
    ),
]

KINDS = {
    types.ResourceListChangedNotification: "resources",
    types.PromptListChangedNotification: "prompts",
}


class Heard:
    """What the host was told: list changes by kind, log messages."""

    def __init__(self) -> None:
        self.changes = {"resources": 0, "prompts": 0}
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self._moved = anyio.Event()

    def _seen(self) -> None:
        moved, self._moved = self._moved, anyio.Event()
        moved.set()

    async def handler(self, message: IncomingMessage) -> None:
        """The client's message handler (the SDK hands listen events here too)."""
        kind = KINDS.get(type(message))
        if kind is not None:
            self.changes[kind] += 1
            self._seen()

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        """The client's logging callback."""
        self.logs.append(params)
        self._seen()

    async def until(self, check: object, timeout: float = 15.0) -> None:
        """Wait until ``check()`` holds."""
        assert callable(check)
        with anyio.fail_after(timeout):
            while not check():
                await self._moved.wait()


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config({"py": stdio_entry(offers_argv()), "ts": stdio_entry(legacy_offers_argv())})


@asynccontextmanager
async def host(
    config: Path,
    tmp_path: Path,
    mode: str,
    heard: Heard,
    runtime: Path | None = None,
    wait: float | None = None,
    elicitation: ElicitationFnT | None = None,
) -> AsyncIterator[Client]:
    """The gateway as a host starts it (its stderr must stay empty); a 2026-07-28 host holds
    a listen stream for resources and prompts. With ``runtime``: ``serve --shared``, through
    the daemon of that runtime folder; with ``wait``: ``--wait`` (the first request waits
    that long for the servers to connect); with ``elicitation``: the host declares forms
    (a 2026-07-28 host's calls are then answered in ``input_required`` rounds)."""
    errors = tmp_path.parent / f"serve-stderr-{tmp_path.name}.txt"
    extra = () if wait is None else ("--wait", str(wait))
    argv, env = serve_argv(config, *extra, shared=runtime is not None)[1:], environment()
    if runtime is not None:
        env = daemon_environment(runtime)
    params = StdioServerParameters(command=sys.executable, args=argv, env=env, cwd=tmp_path)
    with errors.open("w") as errlog:
        client = Client(
            stdio_client(params, errlog=errlog),
            mode=mode,
            message_handler=heard.handler,
            logging_callback=heard.log,
            elicitation_callback=elicitation,
            cache=None,
        )
        async with client, anyio.create_task_group() as group:
            if client.protocol_version == "2026-07-28":

                async def follow(*, task_status: anyio.abc.TaskStatus[None]) -> None:
                    async with client.listen(
                        resources_list_changed=True, prompts_list_changed=True
                    ) as subscription:
                        task_status.started()
                        async for _ in subscription:
                            pass

                await group.start(follow)
            yield client
            group.cancel_scope.cancel()
    assert errors.read_text() == ""


def text_of(content: object) -> str:
    assert isinstance(content, types.TextResourceContents | types.TextContent), content
    return content.text


@pytest.mark.parametrize("mode", MODES)
async def test_resources_are_listed_under_gateway_uris_read_and_refused_with_why(
    mode: str, config: Path, tmp_path: Path
) -> None:
    async with host(config, tmp_path, mode, Heard()) as client:
        caps = client.server_capabilities
        assert caps.resources is not None and caps.prompts is not None
        listed = await client.list_resources()
        assert [r.uri for r in listed.resources] == [
            f"agentty://{server}/memo://notes/{name}"
            for server in ("py", "ts")
            for name in ("first", "second")
        ]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "agentty://py/memo://notes/{name}",
            "agentty://ts/memo://notes/{name}",
        ]
        read = await client.read_resource("agentty://ts/memo://notes/second")
        assert [c.uri for c in read.contents] == ["agentty://ts/memo://notes/second"]
        assert text_of(read.contents[0]) == "the second note"
        templated = await client.read_resource("agentty://py/memo://notes/anything")
        assert text_of(templated.contents[0]) == "a note called anything"
        with pytest.raises(MCPError) as plain:
            await client.read_resource("memo://notes/first")
        assert "agentty://<server>/<uri>" in plain.value.error.message
        with pytest.raises(MCPError) as nobody:
            await client.read_resource("agentty://nope/memo://notes/first")
        assert "agentty serves no server nope here" in nobody.value.error.message
        with pytest.raises(MCPError) as missing:  # the server's own refusal, passed on
            await client.read_resource("agentty://ts/memo://notes/none")
        assert missing.value.error.code == -32002


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_are_named_as_tools_got_and_refused_with_why(
    mode: str, config: Path, tmp_path: Path
) -> None:
    async with host(config, tmp_path, mode, Heard()) as client:
        listed = await client.list_prompts()
        assert [p.name for p in listed.prompts] == ["py__greet", "ts__greet"]
        assert listed.prompts[1].arguments is not None
        for name in ("py__greet", "ts__greet"):
            got = await client.get_prompt(name, {"name": "Ann"})
            assert text_of(got.messages[0].content) == "Hello, Ann!"
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("nope__greet", {})
        assert "agentty has no prompt named nope__greet" in unknown.value.error.message
        with pytest.raises(MCPError) as refused:  # the server's own refusal, passed on
            await client.get_prompt("ts__greet", {})
        assert "greet needs the argument name" in refused.value.error.message


@pytest.mark.parametrize("mode", MODES)
async def test_each_kind_of_change_reaches_the_host_as_its_list_changed(
    mode: str, config: Path, tmp_path: Path
) -> None:
    heard = Heard()
    async with host(config, tmp_path, mode, heard) as client:
        for server in ("ts", "py"):  # the 2025 era's notification, the 2026 era's event
            await client.get_prompt(f"{server}__greet", {"name": "Ann"})  # names kept
            before = dict(heard.changes)
            await client.call_tool(f"{server}__add_note", {"name": "third", "text": "3"})
            await heard.until(lambda b=before: heard.changes["resources"] == b["resources"] + 1)
            uris = [r.uri for r in (await client.list_resources()).resources]
            assert f"agentty://{server}/memo://notes/third" in uris
            await client.call_tool(f"{server}__add_prompt", {"name": "extra"})
            await heard.until(lambda b=before: heard.changes["prompts"] == b["prompts"] + 1)
            # Got by its new name before any list: the names kept were forgotten.
            got = await client.get_prompt(f"{server}__extra", {})
            assert text_of(got.messages[0].content) == "prompt extra"
            names = [p.name for p in (await client.list_prompts()).prompts]
            assert f"{server}__extra" in names
        assert heard.changes == {"resources": 2, "prompts": 2}
        # A server that goes (switched off in another process) and comes back: both kinds.
        await toggle("disable", config, "ts")
        await heard.until(lambda: heard.changes == {"resources": 3, "prompts": 3})
        assert all(
            r.uri.startswith("agentty://py/") for r in (await client.list_resources()).resources
        )
        with pytest.raises(MCPError) as gone:
            await client.get_prompt("ts__greet", {"name": "Ann"})
        assert "ts" in gone.value.error.message and "switched off" in gone.value.error.message
        await toggle("enable", config, "ts")
        await heard.until(lambda: heard.changes == {"resources": 4, "prompts": 4})
        assert "ts__greet" in [p.name for p in (await client.list_prompts()).prompts]


async def test_log_messages_reach_a_2025_host_tagged_and_at_its_level(
    config: Path, tmp_path: Path
) -> None:
    heard = Heard()
    async with host(config, tmp_path, "legacy", heard) as client:
        assert client.server_capabilities.logging is not None
        await client.call_tool("ts__log", {"level": "info", "text": "before any level"})
        await heard.until(lambda: len(heard.logs) == 1)
        await client.session.send_request(
            types.SetLevelRequest(params=types.SetLevelRequestParams(level="warning")),
            types.EmptyResult,
        )
        await client.call_tool("ts__log", {"level": "info", "text": "below the level"})
        # A server that does not honour the level: the gateway holds it back itself.
        ignoring = {"level": "info", "text": "ignores the level", "ignore_level": True}
        await client.call_tool("ts__log", ignoring)
        await client.call_tool("ts__log", {"level": "error", "text": "above the level"})
        await heard.until(lambda: len(heard.logs) == 2)
        assert [(m.level, m.logger, m.data) for m in heard.logs] == [
            ("info", "ts.offers", "before any level"),
            ("error", "ts.offers", "above the level"),
        ]


async def test_two_hosts_of_the_daemon_hear_each_change_and_log_at_their_own_levels(
    config: Path, tmp_path: Path
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    quiet, chatty = Heard(), Heard()
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    async with (
        host(config, one, "legacy", quiet, runtime) as first,
        host(config, two, "legacy", chatty, runtime) as second,
    ):
        for client in (first, second):
            uris = [r.uri for r in (await client.list_resources()).resources]
            assert "agentty://ts/memo://notes/first" in uris
        await first.call_tool("ts__add_note", {"name": "shared", "text": "s"})
        await quiet.until(lambda: quiet.changes["resources"] == 1)
        await chatty.until(lambda: chatty.changes["resources"] == 1)
        for client in (first, second):
            read = await client.read_resource("agentty://ts/memo://notes/shared")
            assert text_of(read.contents[0]) == "s"
        # The servers are asked for the most verbose level any host set (info), and the
        # gateway holds back, for each host, what is below its own.
        for client, level in ((first, "error"), (second, "info")):
            await client.session.send_request(
                types.SetLevelRequest(params=types.SetLevelRequestParams(level=level)),
                types.EmptyResult,
            )
        await first.call_tool("ts__log", {"level": "debug", "text": "below both"})
        await first.call_tool("ts__log", {"level": "warning", "text": "for the chatty one"})
        await first.call_tool("ts__log", {"level": "error", "text": "for both"})
        await quiet.until(lambda: len(quiet.logs) == 1)
        await chatty.until(lambda: len(chatty.logs) == 2)
        assert [m.data for m in quiet.logs] == ["for both"]
        assert [m.data for m in chatty.logs] == ["for the chatty one", "for both"]
