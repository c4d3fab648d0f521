"""Logging: under the picker and the commands, records go to a file, never to the terminal; a
log is read in a terminal, so what a server (or a library) wrote is there with its controls
visible and its URLs masked."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.logs import LOG_FILE_NAME, ServerLog, quiet_logging
from agentty_tui.config import ConfigStore
from agentty_tui.model import StdioSpec
from tests.conftest import WriteConfig
from tests.helpers import python_argv, stdio_entry
from tests.hostile_text import unsafe_chars


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(False)


@pytest.mark.usefixtures("restore_root_logger")
def test_quiet_logging_replaces_terminal_handlers_with_a_file(tmp_path: Path) -> None:
    root = logging.getLogger()
    root.addHandler(logging.StreamHandler())  # what an import of mcp's server module does
    path = quiet_logging(tmp_path / "logs")
    assert path == tmp_path / "logs" / LOG_FILE_NAME
    assert [type(h) for h in root.handlers] == [logging.FileHandler]
    logging.getLogger("mcp.somewhere").warning("a server said something")
    root.handlers[0].flush()
    assert "a server said something" in path.read_text()


# As a hostile server writes them, raw: OSC 52 (the clipboard), CSI (clear the screen), a C1
# CSI both as a lone byte (not UTF-8) and UTF-8 encoded, a bidi override, a tab (kept), a lone
# CR that would forge the line's start, and a NUL.
HOSTILE_STDERR = (
    b"clip \x1b]52;c;aGk=\x07 clear \x1b[2J c1 \x9b31m utf8 \xc2\x9b2J "
    + "bidi \u202eevil\tend\rforged\x00\n".encode()
)
SHOWN_STDERR = (
    "clip ␛]52;c;aGk=␇ clear ␛[2J c1 \\x9b31m utf8 \\x9b2J bidi <U+202E>evil\tend␍forged␀\n"
)


@pytest.mark.anyio
async def test_a_servers_stderr_is_logged_with_every_control_visible(
    write_config: WriteConfig, log_dir: Path
) -> None:
    code = f"import sys; sys.stderr.buffer.write({HOSTILE_STDERR!r}); sys.exit(3)"
    path = write_config({"hostile": stdio_entry(python_argv(code))})
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20.0)
    assert model.servers[0].status == "failed"
    written = ServerLog(log_dir, "hostile", path).path.read_bytes()
    text = written.decode()  # strictly: no byte that is not UTF-8 is left either
    for raw in ("\x1b", "\x9b", "\x07", "\x00", "\r", "\u202e"):
        assert raw not in text  # `cat` or `less` of the log obeys nothing the server sent
    assert re.search(r"\n\d\d:\d\d:\d\d " + re.escape(SHOWN_STDERR), text), text
    assert unsafe_chars(text, allowed="\n\t") == []


def test_the_spawn_line_and_our_notes_show_controls_and_mask_urls(log_dir: Path) -> None:
    log = ServerLog(log_dir, "x")
    log.open_for_child(StdioSpec(command="evil\x1b]0;title\x07", args=("a",)))
    log.note("transport error: \x1b[2J at http://u:pw-secret@h/mcp?token=tok-secret\nforged")
    log.close()
    text = log.path.read_text()
    assert " spawn evil␛]0;title␇ (1 args)\n" in text
    assert "transport error: ␛[2J at http://•:••••••••@h/mcp?token=••••••••\nforged" in text
    assert unsafe_chars(text, allowed="\n") == []


@pytest.mark.usefixtures("restore_root_logger")
def test_the_app_log_masks_urls_and_shows_controls(tmp_path: Path) -> None:
    # As the mcp SDK logs an OAuth error: the message and its traceback quote the expanded URL.
    path = quiet_logging(tmp_path / "logs")
    assert path is not None
    url = "http://user:pw-secret@127.0.0.1:9/mcp?token=tok-secret"
    try:
        raise RuntimeError(f"Protected resource does not match expected {url}")
    except RuntimeError:
        logging.getLogger("mcp.client.auth").exception("OAuth flow error \x1b]52;c;aGk=\x07")
    logging.getLogger().handlers[0].flush()
    text = path.read_text()
    assert "OAuth flow error ␛]52;c;aGk=␇\nTraceback" in text
    assert "expected http://••••:••••••••@127.0.0.1:9/mcp?token=••••••••\n" in text
    assert "secret" not in text
    assert unsafe_chars(text, allowed="\n") == []
