"""Fixtures of the picker tests: SVG snapshots live in the top-level ``snapshots/`` folder."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_textual_snapshot

SNAPSHOT_ROOT = Path(__file__).resolve().parents[2] / "snapshots"
"""``<repo>/snapshots``: one folder per test module, one SVG per test."""


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """pytest-textual-snapshot's SVG extension, storing under ``<repo>/snapshots/<module>/``."""

    @classmethod
    def dirname(cls, *, test_location: object) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _snapshots_at_top_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """``snap_compare`` looks the extension up by module global when the fixture is set up."""
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", TopLevelSVGExtension)


@pytest.fixture(autouse=True)
def _no_host_files_of_the_real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first run's offer looks in an empty fake home: the developer's own
    ``~/.claude.json`` never changes what a test sees (a test passes its own ``host_files``)."""
    import agentty_tui.ui.host_files as host_files_module
    from agentty_tui.config.discover import HostFile, host_config_files

    def fake_home(config: Path | None) -> tuple[HostFile, ...]:
        return host_config_files(tmp_path / "no-home", {}, None, exclude=config)

    monkeypatch.setattr(host_files_module, "host_files_here", fake_home)
