"""SVG snapshots of the picker attached to the gateway daemon (``DaemonSource``).

A static source with a fixed daemon view: the title names the daemon, the panel under it
lists the attached hosts (host, project, since when, how many tools each lists); and the
same picker once the daemon went away. Stored in ``<repo>/snapshots/test_attached_snapshots/``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from agentty_tui.bridge.elicit import ServerElicitationComplete
from agentty_tui.gateway.picker.remote_source import GONE
from agentty_tui.gateway.picker.view import AttachedHost, DaemonAsk, DaemonView
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.source import DaemonSource
from tests.ui.fakes import StaticSource, connected_model

SnapCompare = Callable[..., bool]
SIZE = (100, 24)

HOSTS = (
    AttachedHost(
        "claude",
        "/home/me/project",
        "2026-12-02T15:40:02Z",
        frozenset({("notes", "add_note"), ("notes", "list_notes")}),
    ),
    AttachedHost(
        "codex", "/home/me/project", "2026-12-02T15:41:30Z", frozenset({("notes", "add_note")})
    ),
)


class AttachedSource(StaticSource):
    """A fixed model, served as if by the daemon ``view``."""

    def __init__(self, view: DaemonView) -> None:
        super().__init__(connected_model())
        self.view = view

    @property
    def daemon(self) -> DaemonView:
        return self.view

    async def daemon_views(self) -> AsyncIterator[DaemonView]:
        yield self.view

    def set_daemon_asks(
        self, ask: DaemonAsk | None, completed: ServerElicitationComplete | None = None
    ) -> None:
        self.asks = ask


def test_the_static_source_is_a_daemon_source() -> None:
    assert isinstance(AttachedSource(DaemonView(pid=1)), DaemonSource)


def test_attached_hosts(snap_compare: SnapCompare) -> None:
    """Title "· gateway daemon 4242"; under it, the two hosts attached for the workspace,
    each with its project, since when (UTC) and how many tools it lists."""
    source = AttachedSource(DaemonView(pid=4242, hosts=HOSTS))
    assert snap_compare(PickerApp(source, follow=False), terminal_size=SIZE)


def test_daemon_gone(snap_compare: SnapCompare) -> None:
    """Title "· daemon gone"; the panel, in the warning colours, says what the picker does."""
    source = AttachedSource(DaemonView(pid=None, attached=False, note=GONE))
    assert snap_compare(PickerApp(source, follow=False), terminal_size=SIZE)
