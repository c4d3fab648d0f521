"""Header names and values are checked when a config is read, in every dialect that has them.

A malformed header fails its own entry with a message naming file, server and header, never
the value; the file's other servers load.
"""

from __future__ import annotations

import re
from pathlib import Path

import h11
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.config import ConfigStore
from agentty_tui.config.entry_rules import header_problem
from agentty_tui.model import HttpSpec

SECRET = "tok-planted-HEADER-5151"


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("Authorization", f"Bearer {SECRET}\n", "ends with a line break"),
        ("Authorization", f"Bearer {SECRET}\r", "ends with a line break"),
        ("X-A", f"{SECRET}\r\nInjected: 1", "line break (CR or LF) at character 24"),
        ("X-A", f"{SECRET}\x00", "NUL character"),
        ("X-A", f"\x1b[2J{SECRET}", "control character U+001B"),
        ("X-A", f"{SECRET}\x7f", "control character U+007F"),
        ("X-A", f"{SECRET}\x85", "control character U+0085"),
        ("X-A", f"{SECRET}é", "non-ASCII character"),
        ("X-A", f" {SECRET}", "starts or ends with whitespace"),
        ("X A", SECRET, "not a valid header name"),
        ("X-A:", SECRET, "not a valid header name"),
        ("", SECRET, "not a valid header name"),
    ],
)
def test_header_problem_names_the_fault_never_the_value(name: str, value: str, words: str) -> None:
    problem = header_problem(name, value)
    assert problem is not None and words in problem
    assert SECRET not in problem


@pytest.mark.parametrize("value", ["Bearer abc", "a\tb", "", "${TOKEN}", "Bearer ${T:-x}"])
def test_header_problem_accepts_what_http_can_send(value: str) -> None:
    assert header_problem("X-Api-Key", value) is None


def _dialect_files() -> list[tuple[str, str, str]]:
    """(file name, text, the field the bad header is named by) for every dialect."""
    bad = f"Bearer {SECRET}\\n"  # as written inside a JSON or TOML string
    good = '"url": "http://h/mcp", "headers": {"X-Ok": "1"}'
    return [
        (
            ".mcp.json",
            f'{{"mcpServers": {{"bad": {{"url": "http://h/mcp", '
            f'"headers": {{"Authorization": "{bad}"}}}}, "good": {{{good}}}}}}}',
            "headers.Authorization",
        ),
        (
            ".gemini/settings.json",
            f'{{\n  // Gemini\n  "mcpServers": {{"bad": {{"httpUrl": "http://h/mcp", '
            f'"headers": {{"Authorization": "{bad}"}}}}, "good": {{"httpUrl": "http://h/mcp", '
            '"headers": {"X-Ok": "1"}}}\n}\n',
            "headers.Authorization",
        ),
        (
            ".vscode/mcp.json",
            f'{{\n  "servers": {{"bad": {{"type": "http", "url": "http://h/mcp", '
            f'"headers": {{"Authorization": "{bad}"}}}}, '
            f'"good": {{"type": "http", {good}}}}}\n}}\n',
            "headers.Authorization",
        ),
        (
            ".codex/config.toml",
            f'[mcp_servers.bad]\nurl = "http://h/mcp"\nhttp_headers = {{ Authorization = "{bad}" }}'
            '\n\n[mcp_servers.good]\nurl = "http://h/mcp"\nhttp_headers = { "X-Ok" = "1" }\n',
            "http_headers.Authorization",
        ),
        (
            ".codex/config.toml",
            '[mcp_servers.bad]\nurl = "http://h/mcp"\nenv_http_headers = { "X Bad" = "V" }\n\n'
            '[mcp_servers.good]\nurl = "http://h/mcp"\nhttp_headers = { "X-Ok" = "1" }\n',
            "env_http_headers.X Bad",
        ),
    ]


@pytest.mark.parametrize(
    ("name", "text", "field"),
    _dialect_files(),
    ids=["claude", "gemini", "vscode", "codex-http_headers", "codex-env_http_headers"],
)
def test_a_malformed_header_fails_its_entry_in_every_dialect(
    tmp_path: Path, name: str, text: str, field: str
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    config = ConfigStore(path).load()
    bad, good = config.server("bad"), config.server("good")
    assert bad is not None and bad.spec is None and bad.problem is not None
    # The line is said where the file is plain JSON (``engine._problem_line``).
    assert re.match(rf"{re.escape(str(path))}(:\d+)?: server 'bad', field {field!r}: ", bad.problem)
    assert SECRET not in bad.problem
    assert good is not None and good.problem is None
    assert good.spec == HttpSpec(url="http://h/mcp", headers={"X-Ok": "1"})


def _http_accepts(name: str, value: str) -> bool:
    """Whether the HTTP client would send this header: ASCII (as httpx encodes it) and legal
    by h11, the HTTP/1.1 library under it."""
    try:
        raw = (name.encode("ascii"), value.encode("ascii"))
        # A request has one Host: a header of that name is it (as httpx sends it), not a second.
        host = [] if name.lower() == "host" else [(b"Host", b"h")]
        h11.Request(method="GET", target="/", headers=[*host, raw])
    except (UnicodeEncodeError, h11.LocalProtocolError):
        return False
    return True


# Short texts over the characters the rule is about, or Latin-1 at large.
_HEADER_TEXT = st.one_of(
    st.text(st.sampled_from(" \taZ0-:\x1b\x7f\r\n\x00é\x85"), max_size=6),
    st.text(st.characters(max_codepoint=0xFF), max_size=12),
)
_HEADER_NAME = st.one_of(st.sampled_from(["Authorization", "X-Key"]), _HEADER_TEXT)


@settings(max_examples=300)
@given(name=_HEADER_NAME, value=_HEADER_TEXT)
def test_the_rule_agrees_with_the_http_client(name: str, value: str) -> None:
    # What the client refuses is refused at load; what it accepts is too, except the control
    # characters h11 lets through (ESC, DEL, ...), which no header should carry to a server.
    problem = header_problem(name, value)
    if not _http_accepts(name, value):
        assert problem is not None
    elif problem is not None:
        controls = [char for char in value if char != "\t" and (char < " " or char == "\x7f")]
        assert controls, problem
