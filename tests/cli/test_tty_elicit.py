"""``call`` on a terminal: a server's form asked field by field, a URL shown and opened only on
a yes; and the real command under a pty, and without one (the server hears a decline)."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types

from agentty_tui.cli.tty_elicit import MAX_PAGES_SHOWN, TerminalAsker, pages_text
from agentty_tui.url_domain import domain_warnings
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import asking_argv, python_server_argv

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "Ada", "description": "your name"},
        "age": {"type": "integer", "minimum": 0},
        "color": {"type": "string", "enum": ["red", "green"]},
    },
    "required": ["age"],
}


def asker(*typed: str) -> tuple[TerminalAsker, io.StringIO, list[str]]:
    answers: Iterator[str] = iter(typed)
    out = io.StringIO()
    opened: list[str] = []

    def read_line() -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    def open_url(url: str) -> bool:
        opened.append(url)
        return True

    return TerminalAsker("srv", out=out, read_line=read_line, open_url=open_url), out, opened


def form(message: str = "Your profile") -> types.ElicitRequestFormParams:
    return types.ElicitRequestFormParams(message=message, requested_schema=FORM)


def test_a_form_is_asked_field_by_field_and_a_bad_value_asked_again() -> None:
    ask, out, _ = asker("", "", "old", "-3", "41", "2", "y")
    result = ask.ask(form())
    assert result.action == "accept"
    assert result.content == {"name": "Ada", "age": 41, "color": "green"}
    shown = out.getvalue()
    assert "server 'srv' asks: Your profile" in shown
    assert "name - your name (text, optional) [Ada]: " in shown
    assert "not an integer: 'old'" in shown and "must be at least 0" in shown
    assert "    2. green" in shown


def test_a_required_field_is_asked_until_given_and_an_optional_one_left_out() -> None:
    ask, out, _ = asker("y", "-", "", "7", "", "")
    result = ask.ask(form())
    assert result.content == {"age": 7}
    assert "this field is required" in out.getvalue()


def test_decline_cancel_and_ended_input_are_distinct_answers() -> None:
    assert asker("n")[0].ask(form()).action == "decline"
    assert asker("c")[0].ask(form()).action == "cancel"
    assert asker("y", "", "5", "1", "n")[0].ask(form()).action == "decline"
    assert asker("y", "")[0].ask(form()).action == "cancel"  # input ended mid-form


def test_the_servers_text_reaches_the_terminal_without_its_controls() -> None:
    ask, out, _ = asker("n")
    ask.ask(form("\x1b[2J[red]wipe"))
    assert "\x1b" not in out.getvalue()


def test_a_url_is_shown_whole_and_opened_only_on_yes() -> None:
    params = types.ElicitRequestURLParams(
        message="Sign in", url="https://example.org/login?x=1", elicitation_id="e1"
    )
    ask, out, opened = asker("")
    assert ask.ask(params).action == "decline" and opened == []
    assert "https://example.org/login?x=1" in out.getvalue()
    assert "domain: example.org" in out.getvalue()
    ask, out, opened = asker("yes")
    assert ask.ask(params).action == "accept"
    assert opened == ["https://example.org/login?x=1"]


def test_a_page_that_is_no_web_page_is_declined_unasked() -> None:
    params = types.ElicitRequestURLParams(
        message="Run this", url="javascript:alert(1)", elicitation_id="e1"
    )
    ask, out, opened = asker("yes")
    assert ask.ask(params).action == "decline" and opened == []
    assert "warning: this is no http or https page: it is not opened" in out.getvalue()
    assert "Open it in your browser?" not in out.getvalue()


def test_a_punycode_or_mixed_script_domain_is_warned_about() -> None:
    assert domain_warnings("example.org") == []
    punycode = domain_warnings("xn--80ak6aa92e.com")  # "аррӏе" in Cyrillic
    assert "punycode" in punycode[0] and "аррӏе" in punycode[0]
    assert any("mixes scripts" in w for w in domain_warnings("pаypal.com"))  # a Cyrillic а


def _read_until(master: int, wanted: str, seen: list[str], deadline: float) -> None:
    while wanted not in "".join(seen):
        assert time.monotonic() < deadline, f"no {wanted!r} in {''.join(seen)!r}"
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen.append(os.read(master, 4096).decode(errors="replace"))
            except OSError:  # the child closed the terminal
                break


def test_call_on_a_terminal_asks_the_form_and_the_server_gets_the_answer(
    write_config: WriteConfig,
) -> None:
    """The real command under a pty: the form server's question, each field typed, and the
    server's own report of what it received."""
    path = write_config({"form": stdio_entry(python_server_argv("form_server.py"))})
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "agentty_tui", "call", "form", "ask", "--config", str(path)]
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen: list[str] = []
    deadline = time.monotonic() + 60
    try:
        for wanted, typed in [
            ("Fill it in?", "y"),
            ("your name", "Grace"),
            ("your age", "x"),
            ("not an integer", "85"),
            ("no default worth sending", "-"),
            ("Send it?", "y"),
        ]:
            _read_until(master, wanted, seen, deadline)
            os.write(master, typed.encode() + b"\r")
        _read_until(master, "accept ", seen, deadline)
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
        os.close(master)
    assert 'accept {"age": 85, "name": "Grace", "nickname": null}' in "".join(seen)


def test_call_without_a_terminal_declines_the_form(write_config: WriteConfig) -> None:
    """Nobody to ask: the server hears a decline (the capability is declared), not an error."""
    path = write_config({"form": stdio_entry(python_server_argv("form_server.py"))})
    result = run_cli("call", "form", "ask", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "decline null"


def page(number: int, url: str = "https://example.org/a") -> types.ElicitRequestURLParams:
    return types.ElicitRequestURLParams(
        message=f"Page {number}\x1b[2J", url=url, elicitation_id=f"p{number}"
    )


def test_pages_of_a_refusal_are_each_shown_and_opened_only_on_a_yes() -> None:
    ask, out, opened = asker("y", "n", "y")
    pages = [page(1), page(2, "https://xn--80ak6aa92e.com/"), page(3, "file:///etc/passwd")]
    assert ask.open_pages_first("authorize", pages) == 1
    assert opened == ["https://example.org/a"]
    text = out.getvalue()
    assert "server 'srv' needs you to open 3 page(s) before 'authorize' can run:" in text
    assert "domain: xn--80ak6aa92e.com" in text and "punycode" in text
    assert "this is no http or https page: it is not opened" in text
    assert "\x1b" not in text and "Page 1␛[2J" in text


def test_pages_without_a_terminal_are_listed_safe_and_bounded() -> None:
    text = pages_text([page(n, f"https://host{n}.example/x\x07") for n in range(12)])
    assert "\x1b" not in text and "\x07" not in text
    assert "  domain: host0.example" in text and "host7.example" in text
    assert "host8.example" not in text and "(4 more page(s) not shown)" in text
    assert text.count("\n- ") == MAX_PAGES_SHOWN - 1


def test_call_without_a_terminal_lists_the_pages_a_refusal_names(write_config: WriteConfig) -> None:
    """``authorize`` fails with ``-32042`` naming ``https://example.com/authorize``."""
    path = write_config({"ask": stdio_entry(asking_argv("--legacy"))})
    result = run_cli("call", "ask", "authorize", "--config", str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(
        "- Authorize the thing\n  https://example.com/authorize\n  domain: example.com\n"
    )
    assert "needs the 1 page(s) above opened in a browser before 'authorize' can run" in (
        result.stderr
    )
    assert "call 'authorize' again once they are done" in result.stderr


def test_call_on_a_terminal_opens_a_refusals_page_on_a_yes(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    """The real command under a pty, ``$BROWSER`` a script that notes the URL it was given."""
    path = write_config({"ask": stdio_entry(asking_argv("--legacy"))})
    marker = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" >> {marker}\n')
    browser.chmod(0o755)
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "agentty_tui", "call", "ask", "authorize", "--config", str(path)]
    env = {**os.environ, "BROWSER": str(browser)}
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, close_fds=True, env=env)
    os.close(slave)
    seen: list[str] = []
    deadline = time.monotonic() + 60
    try:
        _read_until(master, "Open it in your browser?", seen, deadline)
        os.write(master, b"y\r")
        _read_until(master, "call it again", seen, deadline)
        assert child.wait(timeout=30) == 1
    finally:
        if child.poll() is None:
            child.kill()
        os.close(master)
    text = "".join(seen)
    assert "needs you to open 1 page(s) before 'authorize' can run" in text
    assert "domain: example.com" in text
    assert "call it again once the page says you are done" in text
    assert marker.read_text() == "https://example.com/authorize\n"
