"""``PluginSource`` is the picker's only way in (docs/ARCHITECTURE.md §4: the bridge is the only
way to change state), checked on the source text of every module of ``agentty_tui/ui``.

No module of the picker imports the config's stores (``agentty_tui.config.store``,
``ConfigStore``), its workspace (``agentty_tui.config.workspace``, ``Workspace``,
``add_targets``), not even inside a function or under ``TYPE_CHECKING``; and none reaches
around the protocol with ``getattr`` or ``hasattr`` on a source (``self.source``, ``source``):
what the picker needs from the core is a method of ``PluginSource``, which the bridge and the
tests' static sources implement alike. The app's side of the protocol's newer parts (the import,
the reloads of outside edits) is checked on a static source here, the bridge's side in
``tests/bridge/test_bridge_import.py`` and the live tests.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agentty_tui.ui
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import ImportPlan
from agentty_tui.model import ServerConfig, StdioSpec
from agentty_tui.ui.app import PickerApp
from agentty_tui.ui.dialogs import ConfirmScreen
from agentty_tui.ui.import_dialog import ImportScreen
from tests.ui.fakes import StaticSource, connected_model, model, settle
from tests.ui.test_app_live import until

UI = Path(agentty_tui.ui.__file__).parent

FORBIDDEN_MODULES = frozenset({"agentty_tui.config.store", "agentty_tui.config.workspace"})
"""The config's stores and its workspace: the bridge writes through them, never the picker."""
FORBIDDEN_NAMES = frozenset({"ConfigStore", "Workspace", "add_targets"})
"""Their names, wherever they are imported from (``agentty_tui.config`` re-exports some)."""


def _ui_modules() -> list[Path]:
    return sorted(UI.rglob("*.py"))


def _back_doors(tree: ast.AST) -> list[str]:
    """Each import of a forbidden module or name, and each ``getattr``/``hasattr`` on a
    source, as ``line: what``."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name in FORBIDDEN_MODULES
            ]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module in FORBIDDEN_MODULES:
                found.append(f"{node.lineno}: from {module} import ...")
            found += [
                f"{node.lineno}: from {module} import {alias.name}"
                for alias in node.names
                if alias.name in FORBIDDEN_NAMES or f"{module}.{alias.name}" in FORBIDDEN_MODULES
            ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
            and _is_a_source(node.args[0])
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def _is_a_source(node: ast.expr) -> bool:
    """``source``, ``self.source``, ``app.source``: a name or attribute that is a source."""
    if isinstance(node, ast.Name):
        return node.id == "source"
    return isinstance(node, ast.Attribute) and node.attr == "source"


def test_the_picker_reaches_the_core_only_through_its_source() -> None:
    modules = _ui_modules()
    assert UI / "app.py" in modules and UI / "import_dialog.py" in modules
    doors = {
        str(path.relative_to(UI.parent)): found
        for path in modules
        if (found := _back_doors(ast.parse(path.read_text(), str(path))))
    }
    assert doors == {}


def test_the_check_sees_each_kind_of_back_door() -> None:
    """The check itself, on text that has every kind of back door it looks for."""
    text = """
from agentty_tui.config import ConfigStore
from agentty_tui.config.workspace import open_workspace
from agentty_tui.config import store
import agentty_tui.config.store
if TYPE_CHECKING:
    from agentty_tui.config.workspace_x import add_targets
def f(self, source):
    return getattr(self.source, "store", None), hasattr(source, "live")
getattr(self.model, "servers")
"""
    lines = sorted(int(door.split(":")[0]) for door in _back_doors(ast.parse(text)))
    assert lines == [2, 3, 4, 5, 7, 9, 9]


@pytest.mark.anyio
async def test_i_has_the_source_plan_the_import_and_write_it() -> None:
    found = HostFile("Codex", Path("/home/ada/.codex/config.toml"), "codex", 1)
    source = StaticSource(model())
    source.import_plan_given = ImportPlan(
        add=(ServerConfig(name="alpha", spec=StdioSpec(command="alpha-server")),)
    )
    app = PickerApp(source, host_files=lambda _: (found,))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ImportScreen))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        await settle(app)
        said = [str(n.message) for n in app._notifications]
    assert source.calls == [
        ("import_plan", (found.path,)),
        ("import_servers", (found.path,)),
        ("reload", ()),
    ]
    assert "Imported 1 server(s) from Codex: alpha." in said


@pytest.mark.anyio
async def test_the_app_hears_the_sources_outside_edits_until_it_closes() -> None:
    source = StaticSource(connected_model())
    app = PickerApp(source)
    async with app.run_test() as pilot:
        await pilot.pause()
        source.outside_edit(ReloadReport(source.snapshot, added=("weather",)))
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert "Outside edit: Config reloaded: 1 added." in said
    assert source._reload_listeners == []
