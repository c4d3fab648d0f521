"""No module of ours but the SDK seam touches a private name of the mcp SDK.

A minor release of mcp may rename or rework anything private; every such use lives in
``agentty_tui/bridge/_sdk.py``, each with a test of its own (``tests/bridge/test_sdk_seam.py``).
Checked here on the source of every module in ``agentty_tui``, ``bench`` and ``tests/servers``
(parsed with ``ast``; "private" means one leading underscore, not a dunder):

1. no import of a private module of ``mcp`` or ``mcp_types`` (``mcp.shared._httpx_utils``) and no
   private name imported from them;
2. no private attribute of a name imported from them (``types._x``);
3. no private attribute of any other object that our package does not define, nor, in a module
   that imports the SDK (the only kind that holds its objects), one whose name the SDK defines
   (``client.session._dispatcher``, ``server._lowlevel_server``);
4. no ``getattr`` / ``setattr`` / ``hasattr`` / ``delattr`` with an SDK private name as a string;
5. in a class derived from an SDK class (directly, or through a class of the seam), no private
   name used on ``self`` / ``cls`` or defined in the class body that the SDK defines: neither
   reading its private state (``self._initialized``) nor overriding a private hook
   (``async def _auth_flow``).

The SDK's side is read from the installed SDK's own source, so an upgrade re-checks it. Textual's
private names have their own check, ``tests/ui/test_textual_public_api.py``.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import mcp
import mcp_types
import pytest

import agentty_tui

PACKAGE = Path(agentty_tui.__file__).parent
REPO = PACKAGE.parent
SEAM = PACKAGE / "bridge" / "_sdk.py"
SDK_PACKAGES = frozenset({"mcp", "mcp_types"})
SOURCES = [
    *PACKAGE.rglob("*.py"),
    *(REPO / "bench").glob("*.py"),
    *(REPO / "tests" / "servers").glob("*.py"),
]
CHECKED = sorted(path for path in SOURCES if path != SEAM and "__pycache__" not in path.parts)
"""The modules the rule applies to: the package but the seam, the benchmarks, the test servers."""

_ATTR_FUNCTIONS = frozenset({"getattr", "setattr", "hasattr", "delattr"})
STDLIB_PUBLIC = frozenset({"_exit", "_replace", "_asdict", "_fields", "_make"})
"""Documented standard-library names that start with an underscore (``os._exit``, a named
tuple's ``_replace``): public despite the spelling."""


def private(name: str) -> bool:
    """One leading underscore, not a dunder or a mangled name."""
    return name.startswith("_") and not name.startswith("__")


def _defined_names(tree: ast.AST) -> set[str]:
    """Private names a source defines: functions, classes, assignments, ``x._y = ...``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if private(name)}


@cache
def sdk_private_names() -> frozenset[str]:
    """Every private name the installed mcp SDK's source defines."""
    names: set[str] = set()
    for package in (mcp, mcp_types):
        for path in Path(str(package.__file__)).parent.rglob("*.py"):
            names |= _defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


@cache
def seam_names() -> frozenset[str]:
    """The classes and functions the seam offers (a base class from there counts as the SDK's)."""
    tree = ast.parse(SEAM.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    )


@cache
def our_private_names() -> frozenset[str]:
    """Every private name our package and the benchmarks define."""
    names: set[str] = set()
    for path in CHECKED:
        names |= _defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def _sdk_module(name: str) -> bool:
    return name.split(".")[0] in SDK_PACKAGES


def violations(source: str) -> list[str]:
    """Every break of the rule (see the module's docstring) in one module's source."""
    tree = ast.parse(source)
    found: list[str] = []
    sdk_bound: set[str] = set()
    for node in ast.walk(tree):  # rule 1, and the names rule 2 watches
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _sdk_module(alias.name):
                    if any(private(part) for part in alias.name.split(".")):
                        found.append(f"line {node.lineno}: imports {alias.name}")
                    sdk_bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and _sdk_module(node.module or ""):
            module = node.module or ""
            if any(private(part) for part in module.split(".")):
                found.append(f"line {node.lineno}: imports from {module}")
            for alias in node.names:
                if private(alias.name):
                    found.append(f"line {node.lineno}: imports {alias.name} from {module}")
                sdk_bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "agentty_tui.bridge._sdk":
            sdk_bound.update(a.asname or a.name for a in node.names if a.name in seam_names())
    imports_sdk = bool(sdk_bound)
    found.extend(_derived_class_violations(tree, sdk_bound))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            on_self = isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
            if isinstance(root, ast.Name) and root.id in sdk_bound:  # rule 2
                found.append(f"line {node.lineno}: {root.id}...{node.attr} is the SDK's")
            elif (
                not on_self
                and node.attr not in STDLIB_PUBLIC
                and (  # rule 3
                    node.attr not in our_private_names()
                    or (imports_sdk and node.attr in sdk_private_names())
                )
            ):
                found.append(f"line {node.lineno}: {node.attr} may be the SDK's")
        elif (  # rule 4
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _ATTR_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value in sdk_private_names()
        ):
            found.append(f"line {node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def _derived_class_violations(tree: ast.Module, sdk_bound: set[str]) -> list[str]:
    """Rule 5: the SDK's private names in the classes derived from an SDK class."""
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {ast.unparse(base).split(".")[0] for base in node.bases}
        if not bases & sdk_bound:
            continue
        used = [
            (item.lineno, item.name)
            for item in node.body
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and private(item.name)
        ]
        used += [
            (sub.lineno, sub.attr)
            for sub in ast.walk(node)
            if isinstance(sub, ast.Attribute)
            and private(sub.attr)
            and (
                (isinstance(sub.value, ast.Name) and sub.value.id in {"self", "cls"})
                or (isinstance(sub.value, ast.Call) and ast.unparse(sub.value.func) == "super")
            )
        ]
        found.extend(
            f"line {line}: {node.name} uses the SDK's private {name}"
            for line, name in used
            if name in sdk_private_names()
        )
    return found


@pytest.mark.parametrize("path", CHECKED, ids=[str(p.relative_to(REPO)) for p in CHECKED])
def test_no_private_sdk_name_is_touched(path: Path) -> None:
    found = violations(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(REPO)} (move it into bridge/_sdk.py):\n" + "\n".join(
        found
    )


def test_the_rule_catches_each_kind_of_use() -> None:
    """Each rule fires on a small example (the check itself could otherwise pass vacuously)."""
    examples = {
        "from mcp.shared._httpx_utils import create_mcp_http_client": "imports from mcp.shared",
        "import mcp.shared._httpx_utils": "imports mcp.shared._httpx_utils",
        "from mcp.client.session import _preconnect_stamp": "imports _preconnect_stamp",
        "import mcp_types as types\ntypes._private": "types..._private is the SDK's",
        "client.session._dispatcher.send_raw_request()": "_dispatcher may be the SDK's",
        "server._lowlevel_server": "_lowlevel_server may be the SDK's",
        "getattr(client.session, '_stamp')": "getattr(..., '_stamp')",
        "from mcp.client.auth import OAuthClientProvider\n"
        "class P(OAuthClientProvider):\n    async def _initialize(self): pass": (
            "P uses the SDK's private _initialize"
        ),
        "from agentty_tui.bridge._sdk import OAuthProviderBase\n"
        "class P(OAuthProviderBase):\n    def f(self):\n        return self._initialized": (
            "P uses the SDK's private _initialized"
        ),
    }
    for source, expected in examples.items():
        found = violations(source)
        assert any(expected in line for line in found), (source, found)
    # Our own private names on our own objects are fine, and a module that does not import
    # the SDK holds none of its objects.
    assert violations("self._transport\nmemo._entries") == []
    assert violations("import mcp\nmemo._entries") != []
