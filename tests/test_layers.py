"""The layering of docs/ARCHITECTURE.md §2, checked on the real import graph.

model → config → bridge → catalog → gateway → ui, with the ``cli`` package on top. Each
module's layer follows from where it sits in the package (``agentty_tui/config/…`` is config;
a top-level module that is none of the named ones is at the model level), so a new module
needs no entry here. Every ``import`` statement of every module is read, those inside functions and
under ``TYPE_CHECKING`` included: a lower layer may not even name a higher one. Only ``ui``
imports Textual. A fresh interpreter then confirms that the headless entry points do not pull
Textual in at run time, and that the commands that only read or edit the config pull in neither
Textual nor the SDK.

No import cycles either, ``TYPE_CHECKING`` ones included: the same statements, read as a graph
of our modules, have no cycle.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

import agentty_tui

PACKAGE = Path(agentty_tui.__file__).parent

MODEL, CONFIG, BRIDGE, CATALOG, GATEWAY, UI, TOP = range(7)
LAYER_NAMES = ("model", "config", "bridge", "catalog", "gateway", "ui", "top")

_BY_PART: dict[str, int] = {
    "config": CONFIG,
    "bridge": BRIDGE,
    # The catalog package, and the top-level modules it was made of before it was one.
    "catalog": CATALOG,
    "wire_catalog": CATALOG,
    "names": CATALOG,
    "wire": CATALOG,
    "ui": UI,
    # Above the catalog, below the picker: no Textual, and no reach into the picker's rooms.
    "gateway": GATEWAY,
    "cli": TOP,  # the entry, the parser and every command (agentty_tui/cli/)
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


def _from_base(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` statement of a module of ``package`` imports from
    (relative imports resolved)."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def _package_of(path: Path, name: str) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports_of(path: Path, name: str) -> list[tuple[int, str]]:
    """``(line, module)`` for every module that ``path``, the module ``name``, imports
    (relative imports resolved)."""
    package = _package_of(path, name)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
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


GATEWAY_PARTS = ("host", "picker", "stdio", "http", "daemon")
"""The gateway's packages from the bottom up (docs/ARCHITECTURE.md): each may import those
before it, never one after it. ``gateway.rendezvous`` and ``gateway.attachment``, beside them,
are below all five."""


def gateway_part(module: str) -> int | None:
    """Where ``module`` sits among the gateway's packages: ``-1`` for a gateway module outside
    them (below all), ``None`` for a module outside the gateway."""
    parts = module.split(".")
    if parts[:2] != ["agentty_tui", "gateway"]:
        return None
    if len(parts) > 2 and parts[2] in GATEWAY_PARTS:
        return GATEWAY_PARTS.index(parts[2])
    return -1


def gateway_violations(path: Path, name: str | None = None) -> list[str]:
    """What the gateway module ``path`` imports from a gateway package above its own."""
    name = name or _module_name(path)
    own = gateway_part(name)
    assert own is not None
    found: list[str] = []
    for line, module in imports_of(path, name):
        part = gateway_part(module)
        if part is not None and part > own:
            found.append(f"{name.replace('.', '/')}.py:{line}: imports {module}")
    return found


def test_the_gateways_packages_import_only_those_below_them() -> None:
    gateway = PACKAGE / "gateway"
    found = [line for path in sorted(gateway.rglob("*.py")) for line in gateway_violations(path)]
    assert found == []


def test_the_gateway_check_sees_a_host_module_importing_the_daemon(tmp_path: Path) -> None:
    """A copy of the host's tool list with a lazy import of the daemon added."""
    original = PACKAGE / "gateway" / "host" / "tools.py"
    broken = tmp_path / "tools.py"
    broken.write_text(
        original.read_text()
        + "\n\ndef _f() -> None:\n    from agentty_tui.gateway.daemon import process\n"
    )
    assert gateway_violations(original) == []
    assert [
        line.split(": ", 1)[1]
        for line in gateway_violations(broken, "agentty_tui.gateway.host.tools")
    ] == [
        "imports agentty_tui.gateway.daemon",
        "imports agentty_tui.gateway.daemon.process",
    ]


def test_the_layers_follow_the_package_layout() -> None:
    assert layer_of("agentty_tui.model") == MODEL
    assert layer_of("agentty_tui.some_new_module") == MODEL
    assert layer_of("agentty_tui.config.entry_rules") == CONFIG
    assert layer_of("agentty_tui.bridge.auth.flow") == BRIDGE
    assert layer_of("agentty_tui.catalog.names") == layer_of("agentty_tui.names") == CATALOG
    assert layer_of("agentty_tui.gateway.host.server") == GATEWAY
    assert layer_of("agentty_tui.ui.server_form") == UI
    assert layer_of("agentty_tui.cli") == layer_of("agentty_tui.cli.report") == TOP
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
    [
        "agentty_tui.config",
        "agentty_tui.bridge",
        "agentty_tui.catalog",
        "agentty_tui.gateway.stdio.serve",
        "agentty_tui.cli.headless",
    ],
)
def test_headless_entry_points_do_not_load_textual(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert [name for name in loaded if name.split(".")[0] == "textual"] == []


SDK_AND_UI = ("mcp", "mcp_types", "httpx", "httpx2", "textual")
"""The SDK, its HTTP client (``httpx2``, or ``httpx``) and Textual: none of them is needed by a
command that does not connect."""

PARSER_ONLY = ("pydantic", "anyio", "agentty_tui.config", "agentty_tui.model", *SDK_AND_UI)
"""What ``--help`` and ``--version`` need none of: they are argparse alone."""


def _config_only_run(
    tmp_path: Path, runs: list[list[str]], watched: tuple[str, ...] = SDK_AND_UI
) -> list[str]:
    """``cli.main(words)`` for each of ``runs``, in order, in one fresh interpreter whose home
    and current folder are ``tmp_path``; after each, ``words: module, ...`` for the modules of
    ``watched`` (a package stands for its submodules too) imported so far (``words: -`` for
    none)."""
    code = """
import contextlib, io, json, sys
from agentty_tui import cli
watched = json.loads(sys.argv[2])
for words in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            status = cli.main(words)
        except SystemExit as exit:  # --help, --version
            status = exit.code
    assert status == 0, (words, status)
    loaded = [w for w in watched if any(m == w or m.startswith(w + ".") for m in sys.modules)]
    print(" ".join(words) + ": " + (", ".join(loaded) or "-"))
"""
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
    }
    env.pop("AGENTTY_CONFIG", None)
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(runs), json.dumps(watched)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


CONFIG_ONLY = [
    ["--version"],
    ["--help"],
    ["add", "--help"],
    ["sources"],
    ["sources", "--json"],
    ["add", "web", "--url", "https://example.com/mcp"],
    ["logout", "web"],
    ["add", "local", "--config", "{one}", "--", "true"],
    ["disable", "local", "tool", "--config", "{named}"],
    ["enable", "local", "tool", "--config", "{named}"],
    ["disable", "local", "--config", "{one}"],
    ["enable", "local", "--config", "{one}"],
    ["import", "{other}", "--yes", "--config", "{one}"],
    ["trust", "--all"],
    ["remove", "local", "--config", "{one}"],
    ["remove", "web"],
]
"""Commands that only read or edit the config (and ``--help``, ``--version``): none connects,
so none needs the SDK, its HTTP client or the UI. ``enable``/``disable`` of a tool check it
with the live server only when the config does not name it yet: ``{named}`` names it.
``logout`` forgets what is stored for a URL server, without asking it anything."""


def test_commands_that_only_read_or_edit_the_config_import_no_sdk_nor_textual(
    tmp_path: Path,
) -> None:
    one, named, other = tmp_path / "one.json", tmp_path / "named.json", tmp_path / "other.json"
    named.write_text(
        json.dumps({"mcpServers": {"local": {"command": "true", "tools": {"exclude": ["tool"]}}}})
    )
    other.write_text(json.dumps({"mcpServers": {"copied": {"command": "true"}}}))
    paths = {"{one}": str(one), "{named}": str(named), "{other}": str(other)}
    runs = [[paths.get(word, word) for word in words] for words in CONFIG_ONLY]
    assert _config_only_run(tmp_path, runs) == [f"{' '.join(words)}: -" for words in runs]


EVENT_LOOP = ("asyncio", "anyio", *SDK_AND_UI)
"""What a config-only command needs none of: it runs without an event loop
(``cli.headless.run_headless``)."""


def test_config_only_commands_run_without_an_event_loop(tmp_path: Path) -> None:
    """Every config-only command but ``import`` (which may ask on a terminal, as ``connect``
    does, in a worker thread of the event loop) imports neither asyncio nor anyio."""
    one, named, other = tmp_path / "one.json", tmp_path / "named.json", tmp_path / "other.json"
    named.write_text(
        json.dumps({"mcpServers": {"local": {"command": "true", "tools": {"exclude": ["tool"]}}}})
    )
    paths = {"{one}": str(one), "{named}": str(named), "{other}": str(other)}
    runs = [
        [paths.get(word, word) for word in words] for words in CONFIG_ONLY if words[0] != "import"
    ]
    found = _config_only_run(tmp_path, runs, EVENT_LOOP)
    assert found == [f"{' '.join(words)}: -" for words in runs]


def test_the_event_loop_check_sees_the_one_a_command_brings(tmp_path: Path) -> None:
    one, other = tmp_path / "one.json", tmp_path / "other.json"
    other.write_text(json.dumps({"mcpServers": {"copied": {"command": "true"}}}))
    runs = [["sources"], ["import", str(other), "--yes", "--config", str(one)]]
    before, after = _config_only_run(tmp_path, runs, EVENT_LOOP)
    assert before == "sources: -"
    assert {"asyncio", "anyio"} <= set(after.rpartition(": ")[2].split(", "))


ONE_JSON_FILE_SPARES = (
    "tomlkit",
    "agentty_tui.model",
    "agentty_tui.config.hosts.codex",
    "agentty_tui.config.hosts.codex_trust",
    "agentty_tui.config.hosts.gemini",
    "agentty_tui.config.hosts.gemini_system",
    "agentty_tui.config.hosts.vscode",
    "agentty_tui.config.hosts.claude.switches",
    "agentty_tui.config.importing",
)
"""What a config-only command on one JSON file (``--config``) needs none of: TOML and the
other dialects (``config.detect`` imports a dialect when it meets a file of it), the other
hosts' own rules (``Workspace`` reads them for a workspace of several files), the importer,
and the live model (its classes are a connecting command's)."""

ONE_JSON_FILE = [
    ["add", "local", "--config", "{one}", "--", "true"],
    ["disable", "local", "tool", "--config", "{named}"],
    ["enable", "local", "tool", "--config", "{named}"],
    ["disable", "local", "--config", "{one}"],
    ["enable", "local", "--config", "{one}"],
    ["logout", "web", "--config", "{url}"],
    ["remove", "local", "--config", "{one}"],
]


def _json_files(tmp_path: Path) -> dict[str, str]:
    one, named, url = tmp_path / "one.json", tmp_path / "named.json", tmp_path / "url.json"
    named.write_text(
        json.dumps({"mcpServers": {"local": {"command": "true", "tools": {"exclude": ["tool"]}}}})
    )
    url.write_text(json.dumps({"mcpServers": {"web": {"url": "https://example.com/mcp"}}}))
    return {"{one}": str(one), "{named}": str(named), "{url}": str(url)}


def test_a_command_on_one_json_file_imports_no_other_dialect_nor_the_live_model(
    tmp_path: Path,
) -> None:
    paths = _json_files(tmp_path)
    runs = [[paths.get(word, word) for word in words] for words in ONE_JSON_FILE]
    found = _config_only_run(tmp_path, runs, ONE_JSON_FILE_SPARES)
    assert found == [f"{' '.join(words)}: -" for words in runs]


def test_the_dialect_check_sees_tomlkit_a_toml_file_brings(tmp_path: Path) -> None:
    paths = _json_files(tmp_path)
    toml = tmp_path / "config.toml"
    toml.write_text('[mcp_servers.local]\ncommand = "true"\n')
    runs = [
        ["disable", "local", "tool", "--config", paths["{named}"]],
        ["disable", "local", "--config", str(toml)],
    ]
    before, after = _config_only_run(tmp_path, runs, ONE_JSON_FILE_SPARES)
    assert before.endswith(": -")
    assert {"tomlkit", "agentty_tui.config.hosts.codex"} <= set(
        after.rpartition(": ")[2].split(", ")
    )


PARSER_RUNS = [["--version"], ["--help"], ["list", "--help"], ["add", "--help"], ["--version"]]


def test_help_and_version_are_argparse_alone(tmp_path: Path) -> None:
    """No pydantic, no event loop, no config package: the parser is built from ``cli`` alone
    (the last ``--version`` comes after every command's help was built)."""
    found = _config_only_run(tmp_path, PARSER_RUNS, PARSER_ONLY)
    assert found == [f"{' '.join(words)}: -" for words in PARSER_RUNS]


def test_the_check_sees_the_sdk_a_command_that_connects_imports(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"mcpServers": {}}))
    runs = [["sources"], ["list", "--config", str(empty)]]
    before, after = _config_only_run(tmp_path, runs)
    assert before == "sources: -"
    assert "mcp" in after.rpartition(": ")[2].split(", ")


def test_the_parser_check_sees_the_config_package_a_command_imports(tmp_path: Path) -> None:
    runs = [["--version"], ["sources"]]
    before, after = _config_only_run(tmp_path, runs, PARSER_ONLY)
    assert before == "--version: -"
    assert {"pydantic", "agentty_tui.config"} <= set(after.rpartition(": ")[2].split(", "))


def imported_modules(path: Path, name: str) -> set[str]:
    """The modules whose code runs because ``path``, the module ``name``, imports them, as
    the edges of the cycle check: ``from p import m`` of a submodule ``m`` imports ``p.m``;
    ``from p import x`` of a name imports ``p`` itself. A package that a module sits in is
    imported before the module, so it is no edge, unless the module takes a name from it."""
    package = _package_of(path, name)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
            for alias in node.names:
                module = f"{base}.{alias.name}"
                found.add(module if _is_module(module) else base)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports."""
    modules = {_module_name(path): path for path in sources()}
    return {
        name: {module for module in imported_modules(path, name) if module in modules} - {name}
        for name, path in modules.items()
    }


def cycles(graph: Mapping[str, set[str]]) -> list[str]:
    """One cycle (``a -> b -> a``) of each strongly connected group of ``graph`` that has one,
    starting at the group's first module in sorted order; sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm; the graph is a few hundred nodes
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group: set[str] = set()
            while not group or module not in group:
                group.add(stack.pop())
            groups.append(group)

    for module in sorted(graph):
        if module not in order:
            visit(module)
    found = []
    for group in groups:
        start = min(group)
        if len(group) == 1 and start not in graph.get(start, ()):
            continue
        # The shortest way back to the start within the group (breadth first).
        back: dict[str, str] = {}
        frontier = [start]
        while start not in back:
            reached = []
            for module in frontier:
                for target in sorted(graph[module] & group):
                    if target not in back:
                        back[target] = module
                        reached.append(target)
            frontier = reached
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(back[path[-1]])
        found.append(" -> ".join(reversed(path)))
    return sorted(found)


def test_the_cycle_check_names_each_cycle_once() -> None:
    graph = {
        "a": {"b"},
        "b": {"c", "d"},
        "c": {"a"},
        "d": set(),
        "e": {"e"},
        "f": {"g"},
        "g": {"f", "d"},
    }
    assert cycles(graph) == ["a -> b -> c -> a", "e -> e", "f -> g -> f"]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_cycle_check_reads_type_checking_imports_and_submodules(tmp_path: Path) -> None:
    """An import under ``TYPE_CHECKING`` or inside a function is an edge; an import of a
    submodule from its own package is an edge to the submodule, not to the package."""
    path = tmp_path / "x.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "from agentty_tui.ui import picker\n"
        "from agentty_tui.config import dialect_by_name\n"
        "if TYPE_CHECKING:\n"
        "    from agentty_tui.ui.rows import Row\n"
        "def f() -> None:\n"
        "    from . import app\n"
    )
    assert imported_modules(path, "agentty_tui.ui.x") == {
        "typing",
        "agentty_tui.ui.picker",
        "agentty_tui.config",
        "agentty_tui.ui.rows",
        "agentty_tui.ui.app",
    }


def test_no_import_cycles_type_checking_ones_included() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(found)
