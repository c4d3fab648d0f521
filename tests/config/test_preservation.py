"""Every kind of edit keeps the file's mode, owner, symlinks, unknown keys and key order.

Each edit kind runs against each layout: a plain file, a relative symlink into another folder,
and a chain of two symlinks; the target has an unusual mode (and, where the tests run as root, a
foreign owner), and the umask during the write is restrictive, so a mode taken from the umask
would show. The document has unknown keys at every level, in no sorted order, and 4-space
indentation with expanded arrays: the file after the edit must be exactly what ``json.dumps``
gives for the expected document, byte for byte.
"""

from __future__ import annotations

import copy
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigEdit,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
)
from agentty_tui.model import HttpSpec, StdioSpec

DOCUMENT: dict[str, Any] = {
    "zFirst": {"b": 1, "a": [2, {"y": None, "x": True}]},
    "$schema": "https://example.invalid/mcp.schema.json",
    "mcpServers": {
        "alpha": {
            "x-before": 1,
            "command": "alpha-server",
            "args": ["--a", "1"],
            "tools": {"x-note": "mine", "exclude": ["e1"], "x-after": [1]},
            "env": {"Z": "z", "A": "a"},
            "x-after": {"b": 1, "a": 2},
        },
        "beta": {
            "url": "https://example.invalid/mcp",
            "headers": {"X-Key": "k"},
            "disabled": True,
            "x-beta": 0,
        },
        "gamma": {"command": "gamma-server", "tools": {"include": ["i1"], "x": 1}},
    },
    "middle": [3, 1, 2],
    "aLast": None,
}


def _servers(document: dict[str, Any]) -> dict[str, Any]:
    servers: dict[str, Any] = document["mcpServers"]
    return servers


def _add_delta(document: dict[str, Any]) -> None:
    _servers(document)["delta"] = {"command": "d", "args": ["-x"], "env": {"K": "V"}}


def _add_epsilon(document: dict[str, Any]) -> None:
    _servers(document)["epsilon"] = {
        "url": "https://example.invalid/sse",
        "headers": {"H": "v"},
        "type": "sse",
    }


def _remove_beta(document: dict[str, Any]) -> None:
    del _servers(document)["beta"]


def _disable_new_tool(document: dict[str, Any]) -> None:
    _servers(document)["alpha"]["tools"]["exclude"] = ["e1", "new"]


def _enable_excluded_tool(document: dict[str, Any]) -> None:
    del _servers(document)["alpha"]["tools"]["exclude"]


def _enable_beyond_include(document: dict[str, Any]) -> None:
    _servers(document)["gamma"]["tools"]["include"] = ["i1", "i2"]


def _disable_alpha(document: dict[str, Any]) -> None:
    _servers(document)["alpha"]["disabled"] = True


def _enable_beta(document: dict[str, Any]) -> None:
    del _servers(document)["beta"]["disabled"]


EDITS: list[tuple[ConfigEdit, Callable[[dict[str, Any]], None]]] = [
    (AddServer("delta", StdioSpec(command="d", args=("-x",), env={"K": "V"})), _add_delta),
    (
        AddServer(
            "epsilon",
            HttpSpec(url="https://example.invalid/sse", headers={"H": "v"}, transport="sse"),
        ),
        _add_epsilon,
    ),
    (RemoveServer("beta"), _remove_beta),
    (SetToolEnabled("alpha", "new", False), _disable_new_tool),
    (SetToolEnabled("alpha", "e1", True), _enable_excluded_tool),
    (SetToolEnabled("gamma", "i2", True), _enable_beyond_include),
    (SetServerDisabled("alpha", True), _disable_alpha),
    (SetServerDisabled("beta", False), _enable_beta),
]


@dataclass(frozen=True)
class Layout:
    """Where the config lives: ``path`` is what the user names, ``target`` the real file."""

    path: Path
    target: Path
    links: dict[Path, str]
    """Every symlink on the way, with what it points to."""


def _plain(root: Path) -> Layout:
    return Layout(path=root / "mcp.json", target=root / "mcp.json", links={})


def _relative_link(root: Path) -> Layout:
    (root / "dotfiles").mkdir()
    (root / "home").mkdir()
    link = root / "home" / "mcp.json"
    link.symlink_to("../dotfiles/mcp.json")
    return Layout(
        path=link, target=root / "dotfiles" / "mcp.json", links={link: "../dotfiles/mcp.json"}
    )


def _link_chain(root: Path) -> Layout:
    (root / "real").mkdir()
    target = root / "real" / "settings.json"
    middle = root / "middle.json"
    middle.symlink_to(target)
    first = root / "mcp.json"
    first.symlink_to(middle)
    return Layout(path=first, target=target, links={first: str(middle), middle: str(target)})


LAYOUTS: dict[str, Callable[[Path], Layout]] = {
    "plain": _plain,
    "relative-symlink": _relative_link,
    "symlink-chain": _link_chain,
}

MODE = 0o604  # unusual on purpose: neither a default nor what the umask below would give
FOREIGN_OWNER = (4321, 4322)


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=4) + "\n"


@pytest.fixture
def restrictive_umask() -> Iterator[None]:
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("restrictive_umask")
@pytest.mark.parametrize("layout_name", list(LAYOUTS))
@pytest.mark.parametrize(
    ("edit", "change"),
    EDITS,
    ids=[
        "add-stdio",
        "add-sse",
        "remove",
        "tool-off",
        "tool-on",
        "tool-on-past-include",
        "server-off",
        "server-on",
    ],
)
def test_every_edit_keeps_mode_owner_links_unknown_keys_and_order(
    tmp_path: Path,
    layout_name: str,
    edit: ConfigEdit,
    change: Callable[[dict[str, Any]], None],
) -> None:
    layout = LAYOUTS[layout_name](tmp_path)
    layout.target.write_text(_text(DOCUMENT))
    os.chmod(layout.target, MODE)
    as_root = os.geteuid() == 0
    if as_root:
        os.chown(layout.target, *FOREIGN_OWNER)
    entries_before = {
        directory: sorted(os.listdir(directory))
        for directory in {link.parent for link in layout.links}
        if directory != layout.target.parent
    }

    config = ConfigStore(layout.path).apply(edit)

    expected = copy.deepcopy(DOCUMENT)
    change(expected)
    # Byte for byte: unknown keys, their order, the layout and everything else untouched.
    assert layout.target.read_text() == _text(expected)
    assert config == ConfigStore(layout.path).load()
    info = os.stat(layout.target, follow_symlinks=False)
    assert stat.S_ISREG(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == MODE
    if as_root:
        assert (info.st_uid, info.st_gid) == FOREIGN_OWNER
    for link, points_to in layout.links.items():
        assert link.is_symlink()
        assert os.readlink(link) == points_to
    # Nothing is written next to the links; the lock (only) sits next to the target.
    for directory, names in entries_before.items():
        assert sorted(os.listdir(directory)) == names
    lock = f".{layout.target.name}.lock"
    leftovers = set(os.listdir(layout.target.parent)) - {layout.target.name, lock}
    assert leftovers <= {p.name for p in layout.links}
