"""The rule book of a valid entry, as pure functions."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.config.entry_rules import (
    EntryError,
    http_spec,
    name_problem,
    new_server_name,
    stdio_spec,
    url_transport,
)
from agentty_tui.model import HttpSpec, StdioSpec

_ALLOWED = set(string.ascii_letters + string.digits + "_.-")


@given(st.text(max_size=80))
def test_a_name_is_accepted_exactly_when_it_is_1_to_64_safe_characters(name: str) -> None:
    fits = 1 <= len(name) <= 64 and set(name) <= _ALLOWED
    assert (name_problem(name) is None) == fits


def test_a_taken_name_is_refused_by_name() -> None:
    with pytest.raises(EntryError) as caught:
        new_server_name("a", ["a", "b"])
    assert (caught.value.field, caught.value.message) == (
        "name",
        "A server named 'a' already exists.",
    )
    assert new_server_name("c", ["a", "b"]) == "c"


@pytest.mark.parametrize(
    ("url", "explicit", "transport"),
    [
        ("http://h/sse", None, "sse"),
        ("http://h/sse/", None, "sse"),
        ("http://h/sse?x=1", None, "sse"),
        ("http://h/mcp", None, "streamable-http"),
        ("http://h/ssex", None, "streamable-http"),
        ("http://h/sse", "http", "streamable-http"),
        ("http://h/mcp", "sse", "sse"),
    ],
)
def test_url_transport(url: str, explicit: str | None, transport: str) -> None:
    assert url_transport(url, explicit) == transport


def test_http_spec_forced_transport_wins_over_the_path() -> None:
    assert http_spec("http://h/sse", sse=False).transport == "streamable-http"
    assert http_spec("http://h/mcp", sse=True).transport == "sse"


def test_a_bad_header_names_the_header_never_its_value() -> None:
    with pytest.raises(EntryError) as caught:
        http_spec("http://h/mcp", {"Authorization": "Bearer s3cret\n"})
    assert caught.value.field == "header" and caught.value.key == "Authorization"
    assert "s3cret" not in caught.value.message


def test_an_env_prefix_typed_as_the_command_says_to_move_it_under_env() -> None:
    with pytest.raises(EntryError) as caught:
        stdio_spec(["TZ=UTC", "mcp-server-time", "--local-timezone", "UTC"])
    assert caught.value.field == "command"
    assert caught.value.message == (
        "'TZ=UTC' sets an environment variable, it is not a command: put TZ=UTC under env "
        "and start the command with 'mcp-server-time'."
    )
    # A word with '=' that is not a variable name is an ordinary command.
    assert stdio_spec(["./a=b"]) == StdioSpec(command="./a=b")


def test_http_spec_is_the_models_spec() -> None:
    assert http_spec("https://h/mcp", {"X": "1"}) == HttpSpec(
        url="https://h/mcp", headers={"X": "1"}
    )


@pytest.mark.parametrize("key", ["", "A=B", "A\x00B", "\ud800"])
def test_an_env_name_that_cannot_be_set_is_refused(key: str) -> None:
    with pytest.raises(EntryError) as caught:
        stdio_spec(["cmd"], {key: "1"})
    assert (caught.value.field, caught.value.key) == ("env", key)


@pytest.mark.parametrize(
    ("argv", "env", "cwd", "field"),
    [
        (["cm\x00d"], {}, None, "command"),
        (["cmd", "a\x00b"], {}, None, "command"),
        (["cmd", "\udc9b"], {}, None, "command"),
        (["cmd"], {}, "/tmp\x00x", "command"),
        (["cmd"], {"K": "v\x00"}, None, "env"),
        (["cmd"], {"K": "\ud800"}, None, "env"),
    ],
)
def test_what_no_process_can_be_given_is_refused(
    argv: list[str], env: dict[str, str], cwd: str | None, field: str
) -> None:
    # The same rule the loader applies to every dialect's entries (config/raw.py).
    with pytest.raises(EntryError) as caught:
        stdio_spec(argv, env, cwd)
    assert caught.value.field == field
    assert "NUL" in caught.value.message or "surrogate" in caught.value.message


def test_a_url_that_cannot_be_taken_apart_is_an_entry_error_not_a_crash() -> None:
    # An unclosed IPv6 bracket: urlsplit raises ValueError, which the add form must not see.
    with pytest.raises(EntryError) as caught:
        http_spec("https://[host/mcp")
    assert caught.value.field == "url"
    assert "is not a URL (Invalid IPv6 URL)" in str(caught.value)
    assert url_transport("https://[host/sse") == "streamable-http"  # a guess never raises
