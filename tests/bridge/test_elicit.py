"""A server's form request during a call: answered with the schema's defaults, or refused; one
outside any call: answered by the bridge's handler, told which server asks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.client.session import ClientRequestContext

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.elicit import accept_defaults, form_defaults, required_without_default
from agentty_tui.bridge.probe import open_server
from agentty_tui.config import ConfigStore
from agentty_tui.errors import OperationError
from agentty_tui.model import ServerConfig
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import python_server_argv


def _form_server(write_config: WriteConfig) -> ServerConfig:
    path = write_config({"form": stdio_entry(python_server_argv("form_server.py"))})
    config = ConfigStore(path).load().server("form")
    assert config is not None
    return config


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def test_defaults_are_taken_where_usable_and_nothing_is_invented() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
            "plain": {"type": "string"},
            "nested": {"type": "object", "default": {"x": 1}},
            "mixed": {"type": "array", "default": [1, "a"]},
            "none": {"type": "string", "default": None},
        },
    }
    assert form_defaults(schema) == {"name": "Ada", "age": 36, "tags": ["a"]}
    assert form_defaults({"properties": ["not", "a", "mapping"]}) == {}
    assert form_defaults({"properties": {"x": "not a mapping"}}) == {}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(JSON)
def test_any_schema_a_server_sends_gives_an_answer_of_protocol_values(schema: Any) -> None:
    answer = form_defaults(schema if isinstance(schema, dict) else {"properties": schema})
    # The answer must be a valid form result, whatever the server sent.
    types.ElicitResult(action="accept", content=answer)
    for value in answer.values():
        assert not isinstance(value, dict) and value is not None


@pytest.mark.anyio
async def test_a_url_request_is_declined() -> None:
    params = types.ElicitRequestURLParams(message="m", url="https://x.invalid", elicitation_id="1")
    result = await accept_defaults(None, params)  # type: ignore[arg-type]  # the context is unused
    assert result.action == "decline" and result.content is None


@pytest.mark.anyio
async def test_a_call_answers_the_servers_form_with_its_defaults(
    write_config: WriteConfig, log_dir: Path
) -> None:
    config = _form_server(write_config)
    with anyio.fail_after(30):
        async with open_server(config, log_dir, elicitation=accept_defaults) as session:
            assert session.state.status == "connected", session.state.error
            answer = _text(await session.call_tool("ask", {}))
            assert answer.startswith("accept ")
            assert json.loads(answer.removeprefix("accept ")) == {
                "age": 36,
                "name": "Ada",
                "nickname": None,
            }


def test_a_required_field_without_a_default_is_named() -> None:
    schema = {
        "properties": {"email": {"type": "string"}, "name": {"default": "Ada"}},
        "required": ["email", "name", 3],
    }
    assert required_without_default(schema) == ["email"]
    assert required_without_default({**schema, "required": "email"}) == []
    assert required_without_default({"properties": {"name": {"default": "Ada"}}}) == []


@pytest.mark.anyio
async def test_a_form_that_requires_a_field_without_a_default_is_declined(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """Accepting it with the defaults alone would send the server an answer its form forbids."""
    config = _form_server(write_config)
    with anyio.fail_after(30):
        async with open_server(config, log_dir, elicitation=accept_defaults) as session:
            assert session.state.status == "connected", session.state.error
            assert _text(await session.call_tool("ask_contact", {})) == "decline null"
            # The form whose required fields all have defaults is still accepted.
            assert _text(await session.call_tool("ask", {})).startswith("accept ")


@pytest.mark.anyio
async def test_without_an_answerer_the_server_hears_forms_are_not_offered(
    write_config: WriteConfig, log_dir: Path
) -> None:
    config = _form_server(write_config)
    with anyio.fail_after(30):
        async with open_server(config, log_dir) as session:
            assert session.state.status == "connected", session.state.error
            with pytest.raises(OperationError, match="did not declare the form elicitation"):
                await session.call_tool("ask", {})


async def _background_answers(bridge: Bridge, count: int) -> list[str]:
    """Have ``elicit_server`` ask ``count`` forms outside any call, and wait for what it got."""
    assert _text(await bridge.call_tool("asker", "later", {"count": count})) == f"asked {count}"
    while True:
        seen = _text(await bridge.call_tool("asker", "answers"))
        if seen.count("\n") == count - 1 and seen:
            return seen.splitlines()
        await anyio.sleep(0.05)


@pytest.mark.anyio
async def test_a_request_outside_any_call_goes_to_the_bridges_handler_with_the_servers_name(
    write_config: WriteConfig, log_dir: Path
) -> None:
    """The library's way to answer what no call's hooks answer: ``Bridge(elicitation=...)``,
    replaced for the servers already running by ``set_elicitation``; without one, a decline."""
    path = write_config({"asker": stdio_entry(python_server_argv("elicit_server.py"))})
    asked: list[tuple[str, str]] = []

    async def answer(
        server: str, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append((server, params.message))
        return types.ElicitResult(action="accept", content={"reply": f"from {server}"})

    with anyio.fail_after(30):
        async with Bridge(ConfigStore(path), log_dir=log_dir, elicitation=answer) as bridge:
            await bridge.settled()
            assert await _background_answers(bridge, 1) == ['bg-1 accept {"reply": "from asker"}']
            assert asked == [("asker", "Question 1 of 1")]
            bridge.set_elicitation(None)
            assert await _background_answers(bridge, 1) == ["bg-1 decline null"]
            assert len(asked) == 1
