"""host_files.py: the other hosts' config files the picker offers, looked for once."""

from __future__ import annotations

from pathlib import Path

from agentty_tui.config.discover import HostFile
from agentty_tui.ui.host_files import HostFileSearch
from tests.ui.fakes import StaticSource, model


class ReadsOne(StaticSource):
    """A source that reads one file besides its own (as a workspace reads a host's)."""

    def __init__(self, read: Path) -> None:
        super().__init__(model())
        self.read = read

    def config_files(self) -> tuple[Path, ...]:
        return (self.read,)


def test_the_files_are_looked_for_once_into_the_import_target_and_read_ones_left_out() -> None:
    read = HostFile("Codex", Path("/home/ada/.codex/config.toml"), "codex", 2)
    other = HostFile("Cursor", Path("/home/ada/.cursor/mcp.json"), "claude", 1)
    asked: list[Path | None] = []

    def find(config: Path | None) -> tuple[HostFile, ...]:
        asked.append(config)
        return (read, other)

    search = HostFileSearch(ReadsOne(read.path), find)
    assert search.found() == (other,)
    assert search.found() == (other,)
    assert asked == [Path("mcp.json")]
