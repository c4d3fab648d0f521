"""``bench_workspace.py``'s setting: the fake home of eight sources, the one file, the picker.

``build`` writes the fake home and project (``tests/fake_home.py``) and the one file with the
same servers; ``opener`` opens either side as the command line does; ``running_picker`` runs a
``Bridge``, its live reload and the real ``PickerApp`` (``_paint.py``) as ``run_picker`` does,
with a ``MilestoneProbe`` that stamps the first frame matching each of several predicates.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from _common import BenchDirs
from _paint import PaintProbe, TimedPickerApp, plain

from agentty_tui.bridge import Bridge
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.model import PluginModel
from tests.fake_home import FakeHome, build_fake_home
from tests.servers import light_argv, scalable_argv

__all__ = [
    "EIGHT",
    "RUN_TIMEOUT",
    "SIDES",
    "SIZE",
    "TOOLS",
    "FramePredicate",
    "MilestoneProbe",
    "all_connected",
    "build",
    "opener",
    "running_picker",
]

SIZE = (120, 40)
RUN_TIMEOUT = 180.0
"""Seconds a start may take until every server is connected."""
TOOLS = 10
EIGHT = (
    "agentty-user",
    "claude-user",
    "claude-local",
    "cursor-user",
    "gemini-user",
    "codex-user",
    "project-mcp",
    "vscode-project",
)
"""The eight sources (seven files: Claude Code's user and local scopes share one)."""
SIDES = ("workspace", "one file")

FramePredicate = Callable[[str], bool]
"""A test of a painted frame's plain text."""


def build(dirs: BenchDirs, per_source: int, token: str, sdk: bool = False) -> tuple[FakeHome, Path]:
    """The fake home with ``per_source`` servers in each of the eight sources, its project
    servers trusted on disk, and the one file holding the same servers; every server a
    ``light_server.py`` (``sdk``: a ``scalable_server.py``) whose ``--name`` is
    ``<token>-<its name>``."""
    argv = scalable_argv if sdk else light_argv
    fake = build_fake_home(
        dirs.root / "fake",
        sources=EIGHT,
        servers_per_source=per_source,
        layered=False,
        twins=(),
        untrusted=False,
        url=None,
        prompted_input=False,
        muted=False,
        server_command=lambda label: argv(TOOLS, name=f"{token}-{label}"),
    )
    workspace = open_workspace(fake.cwd, home=fake.home, env=fake.env)
    workspace.trust(workspace.load())
    waiting = [s.name for s in workspace.load().servers if s.untrusted is not None]
    if waiting:
        raise RuntimeError(f"servers still wait for trust: {waiting}")
    return fake, fake.single_file(dirs.root / "one.json")


def opener(side: str, fake: FakeHome, one: Path) -> Callable[[], Workspace]:
    """How each side opens its config, as the command line does."""
    if side == "workspace":
        return lambda: open_workspace(fake.cwd, home=fake.home, env=fake.env)
    return lambda: Workspace.of_file(one)


def all_connected(servers: int) -> Callable[[PluginModel], bool]:
    """Whether a snapshot has ``servers`` servers, each connected with all its tools."""

    def check(model: PluginModel) -> bool:
        return len(model.servers) == servers and all(
            s.status == "connected" and len(s.tools) == TOOLS for s in model.servers
        )

    return check


class MilestoneProbe(PaintProbe):
    """Stamps the first painted frame that satisfies each of several predicates."""

    def __init__(self) -> None:
        super().__init__()
        self.wanted: dict[str, FramePredicate] = {}
        """Name -> predicate on a frame's plain text, still waiting."""
        self.stamps: dict[str, float] = {}
        """Name -> ``perf_counter()`` time of its first matching frame."""
        self.all_seen = anyio.Event()
        """Set once every expected predicate has matched a frame."""

    def expect(self, wanted: dict[str, FramePredicate]) -> anyio.Event:
        """Watch the next frames for each of ``wanted``; the event is set once all matched."""
        self.wanted = dict(wanted)
        self.stamps = {}
        self.all_seen = anyio.Event()
        return self.all_seen

    def on_frame(self, painted_at: float, terminal_text: str) -> None:
        super().on_frame(painted_at, terminal_text)
        if not self.wanted:
            return
        text = plain(terminal_text)
        for name, predicate in list(self.wanted.items()):
            if predicate(text):
                self.stamps[name] = painted_at
                del self.wanted[name]
        if not self.wanted:
            self.all_seen.set()


@asynccontextmanager
async def running_picker(
    store: Workspace,
    dirs: BenchDirs,
    listener: Callable[[PluginModel], None],
    expect: Callable[[TimedPickerApp], dict[str, FramePredicate]],
) -> AsyncIterator[tuple[Bridge, TimedPickerApp, MilestoneProbe]]:
    """The bridge on ``store`` (``listener`` sees every snapshot from the first), its live
    reload started before the picker as ``run_picker`` does, and the picker, whose probe
    expects ``expect(app)`` from its first frame on; left when every server has stopped."""
    bridge = Bridge(store, log_dir=dirs.logs)
    bridge.add_listener(listener)
    async with bridge, anyio.create_task_group() as watching:
        await watching.start(bridge.watch)
        # No frozen heap: runs follow each other in this process (run_picker freezes it).
        app = TimedPickerApp(bridge, freeze_heap=False, host_files=lambda _config: ())
        probe = MilestoneProbe()
        probe.expect(expect(app))
        app.probe = probe
        async with app.run_test(size=SIZE):
            yield bridge, app, probe
        watching.cancel_scope.cancel()
