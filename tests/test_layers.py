"""The layering of docs/ARCHITECTURE.md §2, checked on the real import graph.

model → config → bridge → catalog → ui, with cli, commands and report on top. Each module's
layer follows from where it sits in the package (``agentty_tui/config/…`` is config; a
top-level module that is none of the named ones is at the model level), so a new module needs
no entry here. Every ``import`` statement of every module is read, those inside functions and
under ``TYPE_CHECKING`` included: a lower layer may not even name a higher one. Only ``ui``
imports Textual. A fresh interpreter then confirms that the headless entry points do not pull
Textual in at run time.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import agentty_tui

PACKAGE = Path(agentty_tui.__file__).parent

MODEL, CONFIG, BRIDGE, CATALOG, UI, TOP = range(6)
LAYER_NAMES = ("model", "config", "bridge", "catalog", "ui", "top")

_BY_PART: dict[str, int] = {
    "config": CONFIG,
    "bridge": BRIDGE,
    # The catalog package, and the top-level modules it was made of before it was one.
    "catalog": CATALOG,
    "wire_catalog": CATALOG,
    "names": CATALOG,
    "wire": CATALOG,
    "ui": UI,
    "cli": TOP,
    "commands": TOP,
    "report": TOP,
    "demo": TOP,  # servers of their own, run as programs
    "__main__": TOP,
}
"""The layer of each top-level module or package that is not at the model level.

``native_tools`` moves into the catalog package; as a top-level module it holds data of the
model (the host's tools) that the bridge reads, so it stays at the model level under that name.
"""


def layer_of(module: str) -> int | None:
    """The layer of ``agentty_tui.…`` module ``module``; ``None`` for a module of another
    distribution."""
    parts = module.split(".")
    if parts[0] != "agentty_tui":
        return None
    if len(parts) == 1:
        return MODEL
    return _BY_PART.get(parts[1], MODEL)


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    root = PACKAGE.parent
    return (root / relative).with_suffix(".py").is_file() or (root / relative).is_dir()


def imports_of(path: Path, name: str) -> list[tuple[int, str]]:
    """``(line, module)`` for every module that ``path``, the module ``name``, imports
    (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            # ``from agentty_tui import commands`` imports the module agentty_tui.commands.
            found += [
                (node.lineno, f"{base}.{alias.name}")
                for alias in node.names
                if _is_module(f"{base}.{alias.name}")
            ]
    return found


def sources() -> list[Path]:
    """Every Python file of the package."""
    return sorted(PACKAGE.rglob("*.py"))


def violations(path: Path, name: str | None = None) -> list[str]:
    """What ``path`` (the module ``name``, by default the one it is in the package) imports
    against the rules, one line each (file:line: what)."""
    name = name or _module_name(path)
    own = layer_of(name)
    assert own is not None
    where = f"{name.replace('.', '/')}.py"
    found: list[str] = []
    for line, module in imports_of(path, name):
        layer = layer_of(module)
        if layer is not None and layer > own:
            found.append(
                f"{where}:{line}: a {LAYER_NAMES[own]} module imports {module} "
                f"({LAYER_NAMES[layer]})"
            )
        if own != UI and (module == "textual" or module.startswith("textual.")):
            found.append(f"{where}:{line}: only agentty_tui/ui may import Textual ({module})")
    return found


def test_no_module_imports_a_higher_layer_or_textual_outside_ui() -> None:
    found = [line for path in sources() for line in violations(path)]
    assert found == []


def test_the_layers_follow_the_package_layout() -> None:
    assert layer_of("agentty_tui.model") == MODEL
    assert layer_of("agentty_tui.some_new_module") == MODEL
    assert layer_of("agentty_tui.config.entry_rules") == CONFIG
    assert layer_of("agentty_tui.bridge.auth.flow") == BRIDGE
    assert layer_of("agentty_tui.catalog.names") == layer_of("agentty_tui.names") == CATALOG
    assert layer_of("agentty_tui.ui.server_form") == UI
    assert layer_of("agentty_tui.cli") == layer_of("agentty_tui.report") == TOP
    assert layer_of("textual.app") is None


def test_the_check_sees_an_upward_import_even_inside_a_function(tmp_path: Path) -> None:
    """A copy of a real config module with a lazy UI import and a relative one added."""
    original = PACKAGE / "config" / "entry_rules.py"
    lines = original.read_text().count("\n")
    broken = tmp_path / "entry_rules.py"
    broken.write_text(
        original.read_text()
        + "\n\ndef _f() -> None:\n    from agentty_tui.ui import server_form\n"
        + "    from .. import cli\n"
    )
    assert violations(original) == []
    assert violations(broken, "agentty_tui.config.entry_rules") == [
        f"agentty_tui/config/entry_rules.py:{lines + 4}: "
        "a config module imports agentty_tui.ui (ui)",
        f"agentty_tui/config/entry_rules.py:{lines + 4}: "
        "a config module imports agentty_tui.ui.server_form (ui)",
        f"agentty_tui/config/entry_rules.py:{lines + 5}: "
        "a config module imports agentty_tui.cli (top)",
    ]


def _loaded_after_import(module: str) -> list[str]:
    code = (
        "import importlib, json, sys; "
        f"importlib.import_module({module!r}); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize(
    "module",
    ["agentty_tui.config", "agentty_tui.bridge", "agentty_tui.catalog", "agentty_tui.commands"],
)
def test_headless_entry_points_do_not_load_textual(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert [name for name in loaded if name.split(".")[0] == "textual"] == []
