"""The layering of docs/ARCHITECTURE.md §2, checked: lower layers never import higher ones.

model → config → bridge → catalog → ui, with cli on top. Each module is imported in a fresh
interpreter and the set of loaded modules is inspected, so an indirect import is caught too.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

LAYERS: dict[str, int] = {
    "agentty_tui.frozen": 0,
    "agentty_tui.errors": 0,
    "agentty_tui.model": 0,
    "agentty_tui.specs": 0,
    "agentty_tui.secrets": 0,
    "agentty_tui.terminal_text": 0,
    "agentty_tui.config": 1,
    "agentty_tui.bridge": 2,
    "agentty_tui.catalog": 3,
    "agentty_tui.report": 3,
    "agentty_tui.ui": 4,
    "agentty_tui.commands": 5,
    "agentty_tui.cli": 5,
}
"""Layer of each top-level module or package; a module may import only its layer or lower."""


def _layer(module: str) -> int | None:
    for prefix, layer in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def _loaded_after_import(module: str) -> list[str]:
    code = (
        "import importlib, json, sys; "
        f"importlib.import_module({module!r}); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize("module", [m for m in LAYERS if _layer(m) is not None])
def test_module_imports_nothing_above_its_layer(module: str) -> None:
    own = _layer(module)
    assert own is not None
    loaded = _loaded_after_import(module)
    above = sorted(name for name in loaded if (layer := _layer(name)) is not None and layer > own)
    assert above == [], f"{module} (layer {own}) pulls in higher layers: {above}"
    if own < LAYERS["agentty_tui.ui"]:
        assert not [name for name in loaded if name == "textual" or name.startswith("textual.")]


def test_every_module_has_a_layer() -> None:
    import pkgutil

    import agentty_tui

    names = [m.name for m in pkgutil.iter_modules(agentty_tui.__path__, "agentty_tui.")]
    missing = [
        name
        for name in names
        if _layer(name) is None and name not in {"agentty_tui.__main__", "agentty_tui.demo"}
    ]
    assert missing == [], f"give these modules a layer in LAYERS: {missing}"


def test_headless_commands_do_not_import_textual() -> None:
    loaded = _loaded_after_import("agentty_tui.commands")
    assert "textual" not in loaded
