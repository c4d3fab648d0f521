"""Logging: under the picker and the commands, records go to a file, never to the terminal."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentty_tui.bridge.logs import LOG_FILE_NAME, quiet_logging


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
