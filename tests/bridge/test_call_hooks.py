"""A call's hooks: the server's progress, forms and roots reach that call's caller; cancelling
the caller cancels the server's request; outside a call, roots come from the bridge's board.

Real servers: ``asking_server.py`` in the 2026-07-28 era (its forms and roots asked in
``input_required`` rounds) and with ``--legacy`` (the 2025 handshake: requests of their own).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.call_hooks import MAX_URLS, CallHooks, CallRouter, url_elicitations
from agentty_tui.bridge.roots import RootsBoard, project_roots
from agentty_tui.bridge.session import SAMPLING_REFUSED, SAMPLING_WARNING
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import asking_argv, python_server_argv

pytestmark = pytest.mark.anyio

ERAS = {"2026": (), "2025": ("--legacy",)}
"""The server's flags for each protocol era."""

HOST_ROOT = types.Root(uri="file:///host/project", name="project")


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


@asynccontextmanager
async def asking(write_config: WriteConfig, log_dir: Path, era: str) -> AsyncIterator[Bridge]:
    path = write_config({"ask": stdio_entry(asking_argv(*ERAS[era]))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        state = (await bridge.settled(timeout=30)).server("ask")
        assert state is not None and state.status == "connected", state
        yield bridge


# --- which call a request is for -------------------------------------------------------


async def test_no_call_in_flight_owns_a_request() -> None:
    assert CallRouter().owner_of_request() is None


async def test_a_request_in_the_calling_task_is_that_calls_even_among_others() -> None:
    router = CallRouter()
    mine, other = CallHooks(owner="a"), CallHooks(owner="b")
    with router.calling(other), router.calling(mine):
        assert router.owner_of_request() is mine  # the 2026-07-28 round, in the call's task


async def test_a_request_from_elsewhere_goes_to_the_one_owner_in_flight_or_nobody() -> None:
    router = CallRouter()
    first, second, stranger = CallHooks(owner="a"), CallHooks(owner="a"), CallHooks(owner="b")
    found: list[CallHooks | None] = []
    send, receive = anyio.create_memory_object_stream[None](1)

    async def receiving() -> None:  # the SDK's receiving task: started before any call
        async for _ in receive:
            found.append(router.owner_of_request())

    async with anyio.create_task_group() as group:
        group.start_soon(receiving)
        with router.calling(first):
            await send.send(None)
            await anyio.wait_all_tasks_blocked()
            with router.calling(second):
                await send.send(None)
                await anyio.wait_all_tasks_blocked()
                with router.calling(stranger):
                    await send.send(None)
                    await anyio.wait_all_tasks_blocked()
        send.close()
    # One call: it. Two calls of one owner: the newest. A second owner: ambiguous.
    assert found == [first, second, None]
    assert router.in_flight == 0


async def test_a_call_without_hooks_keeps_a_request_from_going_to_the_call_beside_it() -> None:
    router = CallRouter()
    host = CallHooks(owner="host")
    found: list[CallHooks | None] = []
    send, receive = anyio.create_memory_object_stream[None](1)

    async def receiving() -> None:
        async for _ in receive:
            found.append(router.owner_of_request())

    async with anyio.create_task_group() as group:
        group.start_soon(receiving)
        with router.calling(None), router.calling(host):  # the picker's call, a host's call
            await send.send(None)
            await anyio.wait_all_tasks_blocked()
        send.close()
    assert found == [None]


async def test_a_url_completion_goes_once_to_the_hooks_that_accepted_it() -> None:
    router = CallRouter()
    hooks = [CallHooks() for _ in range(MAX_URLS + 1)]
    for number, accepted in enumerate(hooks):
        router.accepted_url(f"u{number}", accepted)
    assert router.completed("u0") is None  # the oldest was let go: at most MAX_URLS kept
    assert router.completed(f"u{MAX_URLS}") is hooks[-1]
    assert router.completed(f"u{MAX_URLS}") is None


async def test_the_board_gives_every_offered_root_once_else_the_project() -> None:
    default = project_roots(Path("/work/p"))
    assert [str(root.uri) for root in default] == ["file:///work/p"]
    board = RootsBoard(default)
    assert board.current() == default
    other = types.Root(uri="file:///other")
    board.offer("a", [HOST_ROOT])
    board.offer("b", [other, HOST_ROOT])
    assert board.current() == (HOST_ROOT, other)
    board.withdraw("a")
    board.withdraw("b")
    assert board.current() == default


# --- real servers ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
async def test_progress_reaches_the_calls_hook(
    write_config: WriteConfig, log_dir: Path, era: str
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with anyio.fail_after(30):
        async with asking(write_config, log_dir, era) as bridge:
            result = await bridge.call_tool("ask", "count", {"steps": 3}, CallHooks(progress))
    assert text_of(result) == "counted 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("era", ERAS)
async def test_a_form_goes_to_the_calls_hook_and_without_one_is_declined(
    write_config: WriteConfig, log_dir: Path, era: str
) -> None:
    asked: list[str] = []

    async def answer(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"proceed": True, "note": "yes"})

    with anyio.fail_after(30):
        async with asking(write_config, log_dir, era) as bridge:
            answered = await bridge.call_tool("ask", "confirm", {}, CallHooks(elicitation=answer))
            declined = await bridge.call_tool("ask", "confirm", {})
    assert asked == ["Proceed with the thing?"]
    action, content = text_of(answered).split(" ", 1)
    assert (action, json.loads(content)) == ("accept", {"note": "yes", "proceed": True})
    assert text_of(declined) == "decline null"  # a decline, not "forms are not offered"


async def test_a_url_request_goes_to_the_calls_hook(
    write_config: WriteConfig, log_dir: Path
) -> None:
    asked: list[str] = []

    async def answer(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        asked.append(params.url)
        return types.ElicitResult(action="accept")

    completed: list[str] = []
    told = anyio.Event()

    async def complete(elicitation_id: str) -> None:
        completed.append(elicitation_id)
        told.set()

    hooks = CallHooks(elicitation=answer, elicitation_complete=complete)
    with anyio.fail_after(30):
        async with asking(write_config, log_dir, "2025") as bridge:
            result = await bridge.call_tool("ask", "visit", {}, hooks)
            await told.wait()  # the server's completion, to the hooks that accepted
            declined = await bridge.call_tool("ask", "visit", {})
    assert (text_of(result), asked) == ("accept", ["https://example.com/sign-in"])
    assert completed == ["visit-1"]
    assert text_of(declined) == "decline"


@pytest.mark.parametrize("era", ERAS)
async def test_a_url_required_error_names_its_urls_and_their_completion_reaches_the_hooks(
    write_config: WriteConfig, log_dir: Path, era: str
) -> None:
    completed: list[str] = []
    told = anyio.Event()

    async def complete(elicitation_id: str) -> None:
        completed.append(elicitation_id)
        told.set()

    with anyio.fail_after(30):
        async with asking(write_config, log_dir, era) as bridge:
            hooks = CallHooks(elicitation_complete=complete)
            with pytest.raises(OperationError) as refused:
                await bridge.call_tool("ask", "authorize", {}, hooks)
            urls = url_elicitations(refused.value.__cause__)
            assert urls is not None
            assert [(url.url, url.elicitation_id) for url in urls] == [
                ("https://example.com/authorize", "auth-1")
            ]
            # The page was visited: the server says so outside any call (a 2026-07-28
            # connection carries no notification outside a call or a listen stream: the
            # SDK's server sends it nowhere, measured).
            assert text_of(await bridge.call_tool("ask", "finish", {})) == "finished"
            if era == "2025":
                await told.wait()
    assert completed == (["auth-1"] if era == "2025" else [])


@pytest.mark.parametrize("era", ERAS)
async def test_roots_come_from_the_calls_hook_else_the_project(
    write_config: WriteConfig, log_dir: Path, era: str
) -> None:
    async def roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[HOST_ROOT])

    with anyio.fail_after(30):
        async with asking(write_config, log_dir, era) as bridge:
            hooked = await bridge.call_tool("ask", "roots", {}, CallHooks(roots=roots))
            plain = await bridge.call_tool("ask", "roots", {})
            project = str(bridge.store.root.absolute().as_uri())
    assert text_of(hooked) == "file:///host/project"
    assert text_of(plain) == project


@pytest.mark.parametrize("era", ERAS)
async def test_cancelling_the_caller_cancels_the_servers_request(
    write_config: WriteConfig, log_dir: Path, tmp_path: Path, era: str
) -> None:
    marker = tmp_path / "cancelled.txt"
    started = anyio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    with anyio.fail_after(30):
        async with asking(write_config, log_dir, era) as bridge:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await bridge.call_tool(
                        "ask", "wait", {"marker": str(marker)}, CallHooks(progress)
                    )

                group.start_soon(call)
                await started.wait()
                group.cancel_scope.cancel()
            # The server heard notifications/cancelled: its handler was cancelled. It says so
            # in a file, which has no event to wait on: poll it.
            while not marker.exists():  # noqa: ASYNC110
                await anyio.sleep(0.02)
            assert marker.read_text() == "cancelled"
            # The connection serves on.
            assert text_of(await bridge.call_tool("ask", "count", {"steps": 1})) == "counted 1"


async def test_roots_changed_makes_a_2025_server_ask_again_and_get_the_offer(
    write_config: WriteConfig, log_dir: Path
) -> None:
    with anyio.fail_after(30):
        async with asking(write_config, log_dir, "2025") as bridge:
            bridge.roots.offer("host", [HOST_ROOT])
            await bridge.roots_changed(["ask"])
            seen = ""
            while "\n" not in seen:  # the server asks in a task of its own
                seen = text_of(await bridge.call_tool("ask", "roots_seen", {}))
    assert seen == "1\nfile:///host/project"


async def test_a_sampling_request_is_refused_clearly_and_the_server_noted(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """Sampling is not offered: a server that asks anyway (2025 era: a request of its own)
    hears -32601 with words it can act on, and its state warns that it asked."""
    with anyio.fail_after(30):
        async with asking(write_config, log_dir, "2025") as bridge:
            result = await bridge.call_tool("ask", "sample", {})
            state = bridge.snapshot.server("ask")
    assert text_of(result) == f"refused -32601: {SAMPLING_REFUSED}"
    assert state is not None and SAMPLING_WARNING in state.warnings


async def test_sampling_asked_in_an_input_required_round_fails_the_call_in_our_words(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """2026-07-28: the server asks inside the call's result; the round has no way to tell the
    server no, so the call fails with the refusal's words (not the SDK's), and the server is
    noted as having asked."""
    argv = python_server_argv("light_server.py", "--tools", "1", "--hinted", "--modern")
    path = write_config({"light": stdio_entry(argv)})
    with anyio.fail_after(30):
        async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
            await bridge.settled()
            with pytest.raises(OperationError, match="sampling is not offered by this client"):
                await bridge.call_tool("light", "ponder", {})
            state = bridge.snapshot.server("light")
    assert state is not None and SAMPLING_WARNING in state.warnings
