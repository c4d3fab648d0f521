"""The roots a bridge's servers get when they ask outside a call: offered ones, else the config's.

A server may send ``roots/list`` at any time (many ask once after connecting). Asked during a
call whose caller answers roots (``CallHooks.roots``), the caller answers. Otherwise the
bridge answers with the roots its clients offered (a host attached through the gateway that
declared roots offers its own), every offer in the order made, each root once; with no offer,
the server's own ``roots`` from its config entry (``ServerConfig.roots``), else the workspace's
project root (the folder of the one file of ``--config``). The one-shot ``call`` offers the same
(``server_roots``).

A config edit that changes only a server's ``roots`` keeps its process: the board learns the new
lists (``configure``) and the bridge tells those servers ``notifications/roots/list_changed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

import mcp_types as types

from agentty_tui.model import PluginConfig, ServerConfig

__all__ = ["RootsBoard", "project_roots", "server_roots", "uri_roots"]


def project_roots(root: Path) -> tuple[types.Root, ...]:
    """The one root of a project folder, as a ``file://`` URI named after the folder."""
    folder = root.absolute()
    return (types.Root(uri=folder.as_uri(), name=folder.name or str(folder)),)


def uri_roots(uris: Iterable[str]) -> tuple[types.Root, ...]:
    """Roots of absolute ``file://`` URIs (validated by the config), each named after its
    last folder."""
    found = []
    for uri in uris:
        path = unquote(urlsplit(uri).path).rstrip("/")
        found.append(types.Root(uri=uri, name=path.rsplit("/", 1)[-1] or "/"))
    return tuple(found)


def server_roots(config: ServerConfig, project: Path) -> tuple[types.Root, ...]:
    """What ``config``'s server is offered when nobody else offers roots: its entry's
    ``roots``, else the project folder ``project``'s."""
    if config.roots is not None:
        return uri_roots(config.roots)
    return project_roots(project)


class RootsBoard:
    """The roots offered by a bridge's clients, with each server's default when nobody
    offers any."""

    def __init__(self, default: tuple[types.Root, ...]) -> None:
        """``default``: the roots when nobody offered any and the config names none (the
        project's)."""
        self._default = default
        self._offers: dict[object, tuple[types.Root, ...]] = {}
        self._configured: dict[str, tuple[str, ...]] = {}
        """Each server's ``roots`` from the config, for those whose entry has them."""

    def offer(self, key: object, roots: Iterable[types.Root]) -> None:
        """``key`` (one client, e.g. a host's connection) offers ``roots``, replacing its last."""
        self._offers[key] = tuple(roots)

    def withdraw(self, key: object) -> None:
        """``key`` offers nothing any more (it went away)."""
        self._offers.pop(key, None)

    def configure(self, config: PluginConfig) -> tuple[str, ...]:
        """Take each server's ``roots`` from ``config``; the names of the servers whose
        roots (from the config) changed, to be told so."""
        configured = {s.name: s.roots for s in config.servers if s.roots is not None}
        names = {*configured, *self._configured}
        changed = tuple(
            sorted(name for name in names if configured.get(name) != self._configured.get(name))
        )
        self._configured = configured
        return changed

    def current(self, server: str | None = None) -> tuple[types.Root, ...]:
        """Every offered root, each URI once, in the order offered; else ``server``'s roots
        from the config, else the default."""
        if not self._offers:
            configured = None if server is None else self._configured.get(server)
            return self._default if configured is None else uri_roots(configured)
        seen: set[str] = set()
        found: list[types.Root] = []
        for roots in self._offers.values():
            for root in roots:
                if str(root.uri) not in seen:
                    seen.add(str(root.uri))
                    found.append(root)
        return tuple(found)

    async def answer(self, server: str | None = None) -> tuple[types.Root, ...]:
        """``current(server)``, as a session's roots callback awaits it."""
        return self.current(server)
