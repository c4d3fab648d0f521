"""What servers ask of a picker attached to the real gateway daemon (``daemon.picker_asks``).

The daemon is the real one a host's ``serve --shared`` starts (an SDK client as the host, which
declares no elicitation); the picker's source (``RemoteSource``) attaches to it from this
process with a ``DaemonAsk`` that answers as a test says. The servers are real processes:
``elicit_server.py`` asks forms and a page outside any call, ``asking_server.py --legacy`` asks
a form during a call, reports progress and hears cancellation. What each server got is read
from the server itself.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.gateway.picker.remote_source import RemoteSource
from agentty_tui.gateway.picker.view import AskedBy
from tests.conftest import WriteConfig
from tests.gateway.daemon.test_process import attached, text_of
from tests.gateway.picker.test_remote_source import picker_source, until_model
from tests.helpers import stdio_entry
from tests.servers import asking_argv, python_server_argv

pytestmark = pytest.mark.anyio

TIMEOUT = 30.0

Answer = Callable[[AskedBy, types.ElicitRequestParams], Awaitable[types.ElicitResult]]


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {
            "asker": stdio_entry(python_server_argv("elicit_server.py")),
            "old": stdio_entry(asking_argv("--legacy")),
        }
    )


class Asked:
    """A picker's ``DaemonAsk`` that records who asked what and answers with ``answer``."""

    def __init__(self, answer: Answer) -> None:
        self.seen: list[tuple[AskedBy, types.ElicitRequestParams]] = []
        self.done: list[tuple[str, str]] = []
        self._answer = answer
        self.came = anyio.Event()
        self.finished = anyio.Event()

    async def __call__(self, by: AskedBy, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.seen.append((by, params))
        self.came.set()
        return await self._answer(by, params)

    async def completed(self, server: str, elicitation_id: str) -> None:
        self.done.append((server, elicitation_id))
        self.finished.set()


async def accept_reply(by: AskedBy, params: types.ElicitRequestParams) -> types.ElicitResult:
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    if "proceed" in params.requested_schema.get("properties", {}):  # asking_server's confirm
        return types.ElicitResult(action="accept", content={"proceed": True, "note": "ok"})
    return types.ElicitResult(action="accept", content={"reply": "from the picker"})


def ready(model: object) -> bool:
    servers = getattr(model, "servers", ())
    return sorted((s.name, s.status) for s in servers) == [
        ("asker", "connected"),
        ("old", "connected"),
    ]


@asynccontextmanager
async def asked_picker(
    config: Path, runtime: Path, tmp_path: Path, asked: Asked
) -> AsyncIterator[RemoteSource]:
    async with picker_source(config, runtime, tmp_path / "picker") as source:
        source.set_daemon_asks(asked, asked.completed)
        await until_model(source, ready)
        yield source


async def answers(host: Client, count: int) -> list[str]:
    """What ``elicit_server``'s requests outside a call got, once ``count`` were answered."""
    with anyio.fail_after(TIMEOUT):
        while True:
            lines = text_of(await host.call_tool("asker__answers", {})).splitlines()
            if len(lines) >= count:
                return lines
            await anyio.sleep(0.05)


async def test_a_form_no_call_owns_is_asked_of_the_attached_picker(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """``later`` asks after it answered: no call owns the form, the daemon asks the picker
    (as a request outside any call), and the server gets the picker's answer."""
    asked = Asked(accept_reply)
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        asked_picker(config, runtime, tmp_path, asked),
    ):
        assert text_of(await host.call_tool("asker__later", {"count": 1})) == "asked 1"
        assert await answers(host, 1) == ['bg-1 accept {"reply": "from the picker"}']
        ((by, params),) = asked.seen
        assert by == AskedBy("asker")
        assert isinstance(params, types.ElicitRequestFormParams)
        assert params.message == "Question 1 of 1"


async def test_the_newest_picker_of_the_workspace_is_asked(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """Two pickers attached: the one attached last is asked; once it left, the other is."""
    first, second = Asked(accept_reply), Asked(accept_reply)
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        asked_picker(config, runtime, tmp_path / "one", first),
    ):
        async with asked_picker(config, runtime, tmp_path / "two", second):
            await host.call_tool("asker__later", {"count": 1})
            assert await answers(host, 1) == ['bg-1 accept {"reply": "from the picker"}']
            assert (len(first.seen), len(second.seen)) == (0, 1)
        await host.call_tool("asker__later", {"count": 1})
        assert await answers(host, 1) == ['bg-1 accept {"reply": "from the picker"}']
        assert (len(first.seen), len(second.seen)) == (1, 1)


async def test_without_a_picker_the_form_is_declined(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    async with attached(config, runtime, tmp_path / "host") as host:
        await host.call_tool("asker__later", {"count": 1})
        assert await answers(host, 1) == ["bg-1 decline null"]


async def test_a_picker_leaving_while_asked_declines(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The picker never answers and detaches: the server hears a decline at once."""

    async def never(by: AskedBy, params: types.ElicitRequestParams) -> types.ElicitResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    asked = Asked(never)
    async with attached(config, runtime, tmp_path / "host") as host:
        async with asked_picker(config, runtime, tmp_path, asked):
            await host.call_tool("asker__later", {"count": 1})
            with anyio.fail_after(TIMEOUT):
                await asked.came.wait()
        assert await answers(host, 1) == ["bg-1 decline null"]


async def test_a_host_without_elicitation_has_its_calls_form_asked_of_the_picker(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """The host declared no elicitation: ``confirm``'s form during its call goes to the
    picker, which is told which host's call asks (every host's view, its project), and the
    host's call gets the picker's answer."""
    asked = Asked(accept_reply)
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        asked_picker(config, runtime, tmp_path, asked),
    ):
        result = await host.call_tool("old__confirm", {})
        assert text_of(result) == 'accept {"note": "ok", "proceed": true}'
        ((by, _params),) = asked.seen
        assert by == AskedBy("old", "confirm", by_host=True, host=None, project=str(config))


@asynccontextmanager
async def waiting_call(host: Client, marker: Path) -> AsyncIterator[None]:
    """``host``'s call of ``old``'s ``wait`` in flight (its progress came) while the block
    runs; cancelled after it."""
    started = anyio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    async with anyio.create_task_group() as group:
        arguments = {"marker": str(marker)}
        group.start_soon(
            partial(host.call_tool, "old__wait", arguments, progress_callback=progress)
        )
        with anyio.fail_after(TIMEOUT):
            await started.wait()
        yield
        group.cancel_scope.cancel()


async def test_a_form_during_calls_of_two_hosts_says_both_hosts(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """A 2025 server asks while calls of two hosts are in flight on its one connection: which
    call it is for is not known, so no host is asked, the picker is, told whose calls were in
    flight (both hosts, with their project); the server gets the picker's answer."""
    asked = Asked(accept_reply)
    async with (
        attached(config, runtime, tmp_path / "one") as one,
        attached(config, runtime, tmp_path / "two") as two,
        asked_picker(config, runtime, tmp_path, asked),
        waiting_call(one, tmp_path / "cancelled.txt"),
    ):
        result = await two.call_tool("old__confirm", {})
        assert text_of(result) == 'accept {"note": "ok", "proceed": true}'
    ((by, _params),) = asked.seen
    assert by == AskedBy("old", during=((None, str(config)), (None, str(config))))
    assert by.during_calls and not by.by_host and by.tool is None


async def test_the_pickers_own_call_gets_progress_asks_and_is_cancelled_in_the_daemon(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """Through the daemon: the picker's call of ``confirm`` is asked naming its tool; its call
    of ``crawl`` reports progress to the call's hooks, and cancelling it has the daemon cancel
    the server's request (the server writes its marker)."""
    asked = Asked(accept_reply)
    marker = tmp_path / "cancelled.txt"
    heard: list[tuple[float, float | None, str | None]] = []
    reported = anyio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))
        reported.set()

    async with (
        attached(config, runtime, tmp_path / "host"),
        asked_picker(config, runtime, tmp_path, asked) as source,
    ):
        confirmed = await source.call_tool("old", "confirm", {})
        assert text_of(confirmed) == 'accept {"note": "ok", "proceed": true}'
        assert [by for by, _ in asked.seen] == [AskedBy("old", "confirm")]

        async with anyio.create_task_group() as group:
            hooks = CallHooks(progress=progress)
            group.start_soon(source.call_tool, "old", "crawl", {"marker": str(marker)}, hooks)
            with anyio.fail_after(TIMEOUT):
                await reported.wait()
            group.cancel_scope.cancel()
        assert heard == [(2.0, 5.0, "crawling page 2")]
        with anyio.fail_after(TIMEOUT):
            while not marker.exists():  # noqa: ASYNC110 - the server writes a file, no event
                await anyio.sleep(0.05)
        assert marker.read_text() == "cancelled"


async def test_a_page_accepted_outside_any_call_is_said_done_to_the_picker(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    asked = Asked(accept_reply)
    async with (
        attached(config, runtime, tmp_path / "host") as host,
        asked_picker(config, runtime, tmp_path, asked),
    ):
        assert text_of(await host.call_tool("asker__later_page", {})) == "asked a page"
        with anyio.fail_after(TIMEOUT):
            await asked.finished.wait()
        assert asked.done == [("asker", "page-1")]
        ((by, params),) = asked.seen
        assert by == AskedBy("asker") and isinstance(params, types.ElicitRequestURLParams)
        assert params.url == "https://login.example.org/later"


async def test_an_answer_that_is_no_result_is_a_decline(
    config: Path, runtime: Path, tmp_path: Path
) -> None:
    """On the raw link: a picker's answer of the wrong shape reaches the server as a decline
    (and a picker's answer to an ask it was never sent changes nothing)."""
    from agentty_tui.gateway.attachment import Attachment
    from agentty_tui.gateway.picker.link import LineReader, LineWriter
    from agentty_tui.gateway.rendezvous import rendezvous
    from tests.gateway.daemon.test_process import environment

    async with attached(config, runtime, tmp_path / "host") as host:
        place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
        attachment = Attachment(
            str(tmp_path), str(config), home=str(Path.home()), env=environment(runtime)
        )
        stream = await anyio.connect_unix(place.socket)
        async with stream:
            await stream.send(replace(attachment, picker=True).line())
            reader, writer = LineReader(stream), LineWriter(stream)
            assert await reader.line() == b"ok"
            await writer.send({"answer": 999, "result": {"action": "accept"}})
            await host.call_tool("asker__later", {"count": 1})
            with anyio.fail_after(TIMEOUT):
                while "ask" not in (message := await reader.message()):
                    pass
            await writer.send({"answer": message["ask"], "result": {"action": "sure"}})
            assert await answers(host, 1) == ["bg-1 decline null"]
    assert json.dumps(message["params"])  # the request as the link carried it


# --- one picker's channel, over an in-memory link ------------------------------------


def form(message: str = "Say", size: int = 0) -> types.ElicitRequestFormParams:
    schema = {"type": "object", "properties": {"reply": {"type": "string"}}}
    return types.ElicitRequestFormParams(message=message + "x" * size, requested_schema=schema)


async def test_a_channel_declines_past_its_bounds_and_withdraws_what_timed_out() -> None:
    """At most ``MAX_ASKS`` wait (the next is declined at once), a request over ``MAX_ASK``
    bytes is declined without a line sent, and one unanswered in the timeout is declined and
    withdrawn from the picker."""
    from agentty_tui.gateway.daemon.picker_asks import MAX_ASK, MAX_ASKS, PickerChannel
    from agentty_tui.gateway.picker.link import LineReader, LineWriter

    send, receive = anyio.create_memory_object_stream[bytes](MAX_ASKS * 2 + 4)
    writer = LineWriter(send)  # type: ignore[arg-type]
    channel = PickerChannel(writer, ("file", "x", False), timeout=0.5)
    reader = LineReader(receive)  # type: ignore[arg-type]
    declined = types.ElicitResult(action="decline")
    async with send, receive:
        assert await channel.ask("s", form(size=MAX_ASK)) == declined  # too big: at once
        async with anyio.create_task_group() as group:
            for _ in range(MAX_ASKS):
                group.start_soon(channel.ask, "s", form())
            with anyio.fail_after(TIMEOUT):
                while channel.waiting < MAX_ASKS:  # noqa: ASYNC110 - the asks register
                    await anyio.sleep(0.01)
            assert await channel.ask("s", form()) == declined  # one too many: at once
        with anyio.fail_after(TIMEOUT):
            sent = [await reader.message() for _ in range(MAX_ASKS * 2)]
        assert receive.statistics().current_buffer_used == 0  # nothing else was sent
    asked = [m["ask"] for m in sent if "ask" in m]
    assert len(asked) == MAX_ASKS and all(len(json.dumps(m)) < MAX_ASK for m in sent)
    assert sorted(m["withdrawn"] for m in sent if "withdrawn" in m) == sorted(asked)
    assert channel.waiting == 0


async def test_the_picker_drops_what_the_daemon_withdraws_and_answers_the_rest(
    tmp_path: Path, runtime: Path
) -> None:
    """The picker's side, against a daemon's end of the link played here: an ask the daemon
    withdraws cancels the picker's handler and gets no answer; the next ask is answered; an
    ask that is no request is declined unasked."""
    from agentty_tui.gateway.attachment import Attachment
    from agentty_tui.gateway.picker.link import LineReader, LineWriter
    from agentty_tui.gateway.rendezvous import rendezvous
    from agentty_tui.model import PluginModel

    place = rendezvous({"XDG_RUNTIME_DIR": str(runtime)})
    place.socket.parent.mkdir(parents=True, exist_ok=True)
    entered, cancelled = anyio.Event(), anyio.Event()

    async def handler(by: AskedBy, params: types.ElicitRequestParams) -> types.ElicitResult:
        if params.message == "wait":
            entered.set()
            try:
                await anyio.sleep_forever()
            finally:
                cancelled.set()
        return types.ElicitResult(action="accept", content={"reply": params.message})

    params = form("wait").model_dump(mode="json", by_alias=True)
    heard: list[dict[str, object]] = []

    async def daemon(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            reader, writer = LineReader(stream), LineWriter(stream)
            await reader.line()  # the attachment
            await stream.send(b"ok\n")
            await writer.send({"hello": {"pid": 1}})
            await writer.send_text(f'{{"snapshot":{PluginModel().model_dump_json()}}}')
            await writer.send({"ask": 1, "server": "s", "params": params, "by": {}})
            with anyio.fail_after(TIMEOUT):
                await entered.wait()
                await writer.send({"withdrawn": 1})
                await cancelled.wait()
            await writer.send({"ask": 2, "server": "s", "params": {"mode": "form"}, "by": {}})
            said = {**params, "message": "now"}
            await writer.send({"ask": 3, "server": "s", "params": said, "by": {}})
            with anyio.fail_after(TIMEOUT):
                heard.append(await reader.message())
                heard.append(await reader.message())

    listener = await anyio.create_unix_listener(place.socket)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, daemon)
        attachment = Attachment(str(tmp_path), home=str(Path.home()))
        async with RemoteSource.attached(attachment, place) as source:
            assert source is not None
            source.set_daemon_asks(handler)
            with anyio.fail_after(TIMEOUT):
                while len(heard) < 2:  # noqa: ASYNC110 - the daemon's task reads them
                    await anyio.sleep(0.02)
        group.cancel_scope.cancel()
    assert sorted(heard, key=lambda m: int(str(m["answer"]))) == [
        {"answer": 2, "result": {"action": "decline"}},
        {"answer": 3, "result": {"action": "accept", "content": {"reply": "now"}}},
    ]
