"""The UI (and the picker benchmarks' probe) use Textual's public API only.

A Textual minor release may rename or rework anything private, so nothing of ours may depend
on it. The rule, checked on the source of every module in ``agentty_tui/ui`` and in
``bench`` (parsed with ``ast``; "private" means one leading underscore, not a dunder):

1. no import of a private Textual module (``textual._x``, ``textual.x._y``) and no private name
   imported from Textual (``from textual.x import _y``);
2. no private attribute of a name imported from Textual (``events._x``, ``Option._x``);
3. in a class of ours, no private name used on ``self`` / ``cls`` or defined in the class body
   that a Textual class in its MRO defines (in its body, or as ``self._x = ...`` in its
   methods): neither reading Textual's private state nor overriding a private hook
   (``self._options``, ``def _update_lines``); our own private names must not collide with
   Textual's either, since on a subclass they would share one namespace;
4. a private attribute of any other object (``option._x``, ``memo._entries``) only if our own
   package defines that name and Textual defines it nowhere;
5. no ``getattr`` / ``setattr`` / ``hasattr`` / ``delattr`` with a private name as a string.

The Textual side is read from the installed Textual's own source, so an upgrade re-checks it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
import textual

import agentty_tui

PACKAGE = Path(agentty_tui.__file__).parent
REPO = PACKAGE.parent
CHECKED = [*sorted((PACKAGE / "ui").glob("*.py")), *sorted((REPO / "bench").glob("*.py"))]
"""The modules the rule applies to: the UI and every benchmark (their probes drive it)."""

_ATTR_FUNCTIONS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def private(name: str) -> bool:
    """One leading underscore, not a dunder or a mangled name."""
    return name.startswith("_") and not name.startswith("__")


def _names_defined_in_class(node: ast.ClassDef) -> set[str]:
    """Private names a class defines: in its body, or assigned on ``self`` / ``cls``."""
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.ctx, ast.Store)
            and isinstance(sub.value, ast.Name)
            and sub.value.id in {"self", "cls"}
        ):
            names.add(sub.attr)
        if isinstance(sub, ast.Assign):  # __slots__ = ("_x", ...)
            targets = [t.id for t in sub.targets if isinstance(t, ast.Name)]
            if "__slots__" in targets:
                for const in ast.walk(sub.value):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str):
                        names.add(const.value)
    return {name for name in names if private(name)}


def _classes(tree: ast.Module) -> Iterator[tuple[str, ast.ClassDef]]:
    """Every class of a module with its qualified name (nested classes included)."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.ClassDef]]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qualname = f"{prefix}{node.name}"
                yield qualname, node
                yield from walk(node.body, f"{qualname}.")

    yield from walk(tree.body, "")


@cache
def textual_classes() -> dict[tuple[str, str], frozenset[str]]:
    """``(module, qualname)`` of every class in Textual's source -> the private names it defines."""
    root = Path(textual.__file__).parent
    found: dict[tuple[str, str], frozenset[str]] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for qualname, node in _classes(tree):
            found[(module, qualname)] = frozenset(_names_defined_in_class(node))
    return found


@cache
def textual_private_names() -> frozenset[str]:
    """Every private name any Textual class defines."""
    return frozenset().union(*textual_classes().values())


@cache
def our_private_names() -> frozenset[str]:
    """Every private name a class of our package defines."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for _qualname, node in _classes(ast.parse(path.read_text(encoding="utf-8"))):
            names |= _names_defined_in_class(node)
    return frozenset(names)


def _load(path: Path) -> ModuleType:
    if path.is_relative_to(PACKAGE):
        parts = path.relative_to(REPO).with_suffix("").parts
        return importlib.import_module(".".join(parts))
    name = f"_checked_{path.stem}"
    if str(path.parent) not in sys.path:  # the benchmarks import their siblings (``_common``)
        sys.path.append(str(path.parent))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _textual_names_in_mro(cls: type) -> frozenset[str]:
    """The private names the Textual classes among ``cls``'s bases define."""
    table = textual_classes()
    names: set[str] = set()
    for base in inspect.getmro(cls)[1:]:
        if base.__module__.split(".")[0] == "textual":
            names |= table.get((base.__module__, base.__qualname__), frozenset())
    return frozenset(names)


@dataclass(frozen=True)
class Violation:
    """One use of a private Textual name."""

    line: int
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


def violations(source: str, module: ModuleType | None) -> list[Violation]:
    """Every break of the rule (see the module's docstring) in one module's source.

    ``module`` is the imported module, whose classes' MROs rule 3 needs.
    """
    tree = ast.parse(source)
    found: list[Violation] = []
    textual_bound: set[str] = set()
    for node in ast.walk(tree):  # rule 1, and the names rule 2 watches
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "textual":
                    if any(private(part) for part in alias.name.split(".")):
                        found.append(Violation(node.lineno, f"imports {alias.name}"))
                    textual_bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            modname = node.module or ""
            if any(private(part) for part in modname.split(".")):
                found.append(Violation(node.lineno, f"imports from {modname}"))
            for alias in node.names:
                if private(alias.name):
                    found.append(Violation(node.lineno, f"imports {alias.name} from {modname}"))
                textual_bound.add(alias.asname or alias.name)
    # Rule 3: the names each of our classes uses on self/cls or defines.
    self_nodes: set[int] = set()
    for qualname, node in _classes(tree):
        cls = _resolve(module, qualname)
        forbidden = _textual_names_in_mro(cls) if cls is not None else frozenset()
        used: list[tuple[int, str]] = [
            (item.lineno, item.name)
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and private(item.name)
        ]
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Attribute)
                and isinstance(sub.value, ast.Name)
                and sub.value.id in {"self", "cls"}
            ):
                self_nodes.add(id(sub))
                if private(sub.attr):
                    used.append((sub.lineno, sub.attr))
        for line, name in used:
            if name in forbidden:
                found.append(Violation(line, f"{qualname} uses Textual's private {name}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and id(node) not in self_nodes:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in textual_bound:  # rule 2
                found.append(Violation(node.lineno, f"{root.id}...{node.attr} is Textual's"))
            elif node.attr in textual_private_names() or node.attr not in our_private_names():
                found.append(Violation(node.lineno, f"{node.attr} is not a name of ours"))
        elif (  # rule 5
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _ATTR_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
        ):
            found.append(Violation(node.lineno, f"{node.func.id}(..., {node.args[1].value!r})"))
    return found


def _resolve(module: ModuleType | None, qualname: str) -> type | None:
    target: object = module
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return target if isinstance(target, type) else None


@pytest.mark.parametrize("path", CHECKED, ids=[path.name for path in CHECKED])
def test_no_private_textual_name_is_touched(path: Path) -> None:
    found = violations(path.read_text(encoding="utf-8"), _load(path))
    assert not found, f"{path.relative_to(REPO)}:\n" + "\n".join(map(str, found))


def test_the_rule_catches_each_kind_of_use() -> None:
    """Each rule fires on a small example (the check itself could otherwise pass vacuously)."""
    from agentty_tui.ui import picker

    examples = {
        "from textual._compositor import CompositorUpdate": "imports from textual._compositor",
        "from textual.widgets._option_list import Option": "imports from",
        "import textual._widget_navigation": "imports textual._widget_navigation",
        "from textual import events\nevents._x": "events..._x is Textual's",
        "option._set_prompt(1)": "_set_prompt is not a name of ours",
        "getattr(app, '_driver')": "getattr(..., '_driver')",
        "class PickerList:\n    def f(self):\n        self._scroll_update(1)": (
            "PickerList uses Textual's private _scroll_update"
        ),
        "class PickerList:\n    def _refresh_scrollbars(self): pass": (
            "PickerList uses Textual's private _refresh_scrollbars"
        ),
    }
    for source, expected in examples.items():
        found = violations(source, picker)
        assert any(expected in str(v) for v in found), (source, found)
    assert violations("memo._entries\nself_like = 1", picker) == []  # a name of ours
