"""A call's result as a person reads it: each kind of content block, structured content, and
the CLI's ``call`` on a real server that answers with all of them."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import mcp_types as types
import pytest

from agentty_tui.call_result import (
    MISMATCH_HEADING,
    NO_CONTENT,
    byte_size,
    output_mismatch,
    readable_result,
)
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import python_server_argv

MEDIA_SERVER = Path(__file__).parent / "servers" / "media_server.py"


def _b64(size: int) -> str:
    return base64.b64encode(b"\0" * size).decode()


@pytest.mark.parametrize(
    ("count", "said"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1.0 KB"),
        (5300, "5.3 KB"),
        (999_949, "999.9 KB"),
        (999_999, "1.0 MB"),
        (2_400_000, "2.4 MB"),
        (7 * 10**12, "7000.0 GB"),
    ],
)
def test_sizes_are_said_in_units_of_a_thousand(count: int, said: str) -> None:
    assert byte_size(count) == said


def test_an_image_is_its_type_and_size_never_its_base64() -> None:
    data = _b64(5300)
    result = types.CallToolResult(
        content=[types.ImageContent(type="image", data=data, mime_type="image/png")]
    )
    shown = readable_result(result)
    assert shown == "[image: image/png, 5.3 KB]"
    assert data[:40] not in shown


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 812])
def test_the_size_is_the_decoded_one_whatever_the_padding(size: int) -> None:
    result = types.CallToolResult(
        content=[types.AudioContent(type="audio", data=_b64(size), mime_type="audio/wav")]
    )
    assert readable_result(result) == f"[audio: audio/wav, {size} B]"


def test_links_and_embedded_resources_are_said_by_uri_and_type() -> None:
    result = types.CallToolResult(
        content=[
            types.ResourceLink(type="resource_link", uri="file:///a.pdf", name="a"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="memo://x", text="hello"),
            ),
        ]
    )
    assert readable_result(result).split("\n") == [
        "[resource link: a <file:///a.pdf>, no type given]",
        "[resource: memo://x, no type given, text, 5 characters]",
    ]


def test_structured_content_is_shown_beside_text_that_does_not_say_it() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="21.5 degrees")],
        structured_content={"celsius": 21.5},
    )
    assert readable_result(result) == ('21.5 degrees\nstructured content:\n{\n  "celsius": 21.5\n}')


def test_structured_content_that_a_text_block_repeats_is_shown_once() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text='{"celsius": 21.5}')],
        structured_content={"celsius": 21.5},
    )
    assert readable_result(result) == '{"celsius": 21.5}'


def test_structured_content_alone_is_its_json_and_nothing_at_all_says_so() -> None:
    alone = types.CallToolResult(content=[], structured_content={"ok": True})
    assert readable_result(alone) == '{\n  "ok": true\n}'
    assert readable_result(types.CallToolResult(content=[])) == NO_CONTENT


def _call(config: Path, *args: str) -> str:
    result = run_cli("call", "media", *args, "--config", str(config))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_call_prints_what_a_real_server_sent_as_a_person_reads_it(tmp_path: Path) -> None:
    """``agentty-tui call`` on a real server: images and audio by type and size, links and
    resources by URI, structured content once; ``--json`` keeps the protocol's field names."""
    config = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [str(MEDIA_SERVER)]}
    config.write_text(__import__("json").dumps({"mcpServers": {"media": entry}}))
    assert _call(config, "picture").split("\n")[:2] == [
        "[image: image/png, 5.3 KB]",
        "a test pattern",
    ]
    assert _call(config, "sound").strip() == "[audio: audio/wav, 812 B]"
    assert _call(config, "links").strip().split("\n") == [
        "[resource link: report <file:///srv/report.pdf>, application/pdf, 2.4 MB]",
        "[resource: memo://today, text/plain, text, 5 characters]",
        "[resource: blob://raw, application/octet-stream, 3 B]",
    ]
    weather = _call(config, "weather", '{"city": "Oslo"}')
    assert weather.count('"celsius": 21.5') == 1, weather
    raw = _call(config, "picture", "--json")
    assert '"mimeType": "image/png"' in raw and "mime_type" not in raw


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("hello", "hello"), ("[1, 2]", [1, 2])])
def test_a_value_an_sdk_server_wraps_as_result_is_shown_once(text: str, value: object) -> None:
    """SDK servers send a tool's plain value as its text and as ``{"result": value}``."""
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content={"result": value}
    )
    assert readable_result(result) == text


def test_a_result_is_checked_against_the_output_schema_and_a_mismatch_stated() -> None:
    schema = {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
    good = types.CallToolResult(content=[], structured_content={"size": 3})
    bad = types.CallToolResult(content=[], structured_content={"size": "big"})
    assert output_mismatch(schema, good) is None
    assert output_mismatch(None, bad) is None
    assert output_mismatch(schema, bad) == "at size: 'big' is not of type 'integer'"
    missing = types.CallToolResult(content=[types.TextContent(type="text", text="x")])
    assert output_mismatch(schema, missing) is not None
    errored = missing.model_copy(update={"is_error": True})
    assert output_mismatch(schema, errored) is None  # an error's content need not match
    assert readable_result(bad, schema).split("\n")[-2:] == [
        MISMATCH_HEADING,
        "at size: 'big' is not of type 'integer'",
    ]


def test_an_odd_output_schema_never_raises() -> None:
    value = types.CallToolResult(content=[], structured_content={"a": "b" * 5000})
    assert "not valid" in (output_mismatch({"type": "nonsense"}, value) or "")
    assert "cannot be checked" in (output_mismatch({"$ref": "https://example.com/s"}, value) or "")
    long = output_mismatch({"properties": {"a": {"type": "integer"}}}, value) or ""
    assert long.endswith("…") and len(long) <= 501


def test_call_states_a_mismatch_and_fails(write_config: WriteConfig) -> None:
    argv = python_server_argv("light_server.py", "--tools", "1", "--hinted")
    path = write_config({"light": stdio_entry(argv)})
    text = run_cli("call", "light", "measure", "--config", str(path))
    assert text.returncode == 1
    assert text.stdout.split("\n")[-3:-1] == [
        MISMATCH_HEADING,
        "at size: 'big' is not of type 'integer'",
    ]
    as_json = run_cli("call", "light", "measure", "--json", "--config", str(path))
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["structuredContent"] == {"size": "big"}
    assert "does not match the tool's output schema" in as_json.stderr
