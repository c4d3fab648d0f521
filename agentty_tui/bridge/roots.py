"""The roots a bridge's servers get when they ask outside a call: offered ones, else the project.

A server may send ``roots/list`` at any time (many ask once after connecting). Asked during a
call whose caller answers roots (``CallHooks.roots``), the caller answers. Otherwise the
bridge answers with the roots its clients offered (a host attached through the gateway that
declared roots offers its own), every offer in the order made, each root once; with no offer,
the workspace's project root (the folder of the one file of ``--config``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import mcp_types as types

__all__ = ["RootsBoard", "project_roots"]


def project_roots(root: Path) -> tuple[types.Root, ...]:
    """The one root of a project folder, as a ``file://`` URI named after the folder."""
    folder = root.absolute()
    return (types.Root(uri=folder.as_uri(), name=folder.name or str(folder)),)


class RootsBoard:
    """The roots offered by a bridge's clients, with the default when nobody offers any."""

    def __init__(self, default: tuple[types.Root, ...]) -> None:
        """``default``: the roots when nobody offered any (the project's)."""
        self._default = default
        self._offers: dict[object, tuple[types.Root, ...]] = {}

    def offer(self, key: object, roots: Iterable[types.Root]) -> None:
        """``key`` (one client, e.g. a host's connection) offers ``roots``, replacing its last."""
        self._offers[key] = tuple(roots)

    def withdraw(self, key: object) -> None:
        """``key`` offers nothing any more (it went away)."""
        self._offers.pop(key, None)

    def current(self) -> tuple[types.Root, ...]:
        """Every offered root, each URI once, in the order offered; else the default."""
        if not self._offers:
            return self._default
        seen: set[str] = set()
        found: list[types.Root] = []
        for roots in self._offers.values():
            for root in roots:
                if str(root.uri) not in seen:
                    seen.add(str(root.uri))
                    found.append(root)
        return tuple(found)

    async def answer(self) -> tuple[types.Root, ...]:
        """``current()``, as a session's roots callback awaits it."""
        return self.current()
