"""The loopback model stand-in itself (no host program needed): what it records and answers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.hosts.standin import ANSWER_TEXT, model_standin


def post(url: str, body: dict[str, Any]) -> tuple[str, str]:
    """POST ``body`` as JSON; the answer's content type and text."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read().decode()


def test_an_anthropic_request_is_recorded_and_answered_with_one_message() -> None:
    body = {"model": "m", "tools": [{"name": "a"}, {"name": "mcp__s__b"}], "messages": []}
    with model_standin("anthropic") as standin:
        kind, text = post(f"{standin.url}/v1/messages?beta=true", body)
        assert standin.tool_names() == [["a", "mcp__s__b"]]
    assert kind == "application/json"
    message = json.loads(text)
    assert message["content"] == [{"type": "text", "text": ANSWER_TEXT}]
    assert message["stop_reason"] == "end_turn"


def test_a_streamed_anthropic_request_gets_the_whole_event_sequence() -> None:
    with model_standin("anthropic") as standin:
        kind, text = post(f"{standin.url}/v1/messages", {"model": "m", "stream": True})
    assert kind == "text/event-stream"
    events = [block.split("\n") for block in text.strip().split("\n\n")]
    names = [lines[0].removeprefix("event: ") for lines in events]
    assert names == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    # Each data line is JSON whose type is the event's name.
    assert [json.loads(lines[1].removeprefix("data: "))["type"] for lines in events] == names


def test_a_gemini_request_is_recorded_with_its_function_declarations() -> None:
    body = {"tools": [{"functionDeclarations": [{"name": "mcp_s_a"}, {"name": "read_file"}]}]}
    with model_standin("gemini") as standin:
        kind, text = post(f"{standin.url}/v1beta/models/x:streamGenerateContent?alt=sse", body)
        assert standin.tool_names() == [["mcp_s_a", "read_file"]]
    assert kind == "text/event-stream"
    answer = json.loads(text.removeprefix("data: "))
    assert answer["candidates"][0]["content"]["parts"] == [{"text": ANSWER_TEXT}]


def test_a_responses_request_gets_one_message_and_namespaces_are_flattened() -> None:
    body = {
        "stream": True,
        "tools": [
            {"type": "function", "name": "exec_command"},
            {"type": "namespace", "name": "mcp__s", "tools": [{"name": "a"}, {"name": "b"}]},
        ],
    }
    with model_standin("openai") as standin:
        kind, text = post(f"{standin.url}/v1/responses", body)
        assert standin.tool_names() == [["exec_command", "mcp__s__a", "mcp__s__b"]]
    assert kind == "text/event-stream"
    events = [block.split("\n") for block in text.strip().split("\n\n")]
    data = [json.loads(lines[1].removeprefix("data: ")) for lines in events]
    assert [d["type"] for d in data] == [
        "response.created",
        "response.output_item.done",
        "response.completed",
    ]
    assert data[1]["item"]["content"][0]["text"] == ANSWER_TEXT


def test_anything_else_is_recorded_apart_and_refused() -> None:
    with model_standin("anthropic") as standin:
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(f"{standin.url}/v1/other", {"tools": [{"name": "x"}]})
        assert refused.value.code == 404
        assert standin.tool_names() == []
        assert [r.path for r in standin.other] == ["/v1/other"]
    assert standin.url.startswith("http://127.0.0.1:")
