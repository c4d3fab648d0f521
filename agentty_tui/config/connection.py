"""Replace how a server is reached inside its entry, keeping every other key (``UpdateServer``).

A dialect spells a connection as a few groups of keys, each group carrying some fields of the
spec: in ``mcpServers`` JSON the field ``transport`` is the key ``type``; in Gemini's settings
``url`` and ``transport`` share ``httpUrl`` / ``url`` / ``type``; in Codex's TOML ``headers``
is spread over ``http_headers``, ``env_http_headers`` and ``bearer_token_env_var``. A group
whose fields did not change keeps its keys exactly as written (a Gemini ``$VAR`` stays
``$VAR``, a VS Code ``${env:VAR}`` stays as it is); a changed group's keys are rewritten from
the new entry in the dialect's spelling, an existing key keeping its place. Keys of no group
(tool lists, ``disabled``, ``oauth``, unknown keys) are never touched, except a URL server's
own settings (``oauth``), dropped when it becomes a command server, and a command server's
(VS Code's ``envFile``), dropped when it becomes a URL server: the entry would not load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from agentty_tui.model import ServerConfig, ServerSpec, StdioSpec

__all__ = ["ConnectionSpelling", "same_name", "spec_to_write", "update_connection"]


@dataclass(frozen=True, slots=True)
class ConnectionSpelling:
    """Which keys of a dialect's entry carry which fields of a ``ServerSpec``."""

    groups: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    """``(spec fields, entry keys)`` pairs; every connection key of both transports is in one."""
    url_only: tuple[str, ...] = ()
    """Keys that only a URL server may have (dropped when the server becomes a command)."""
    command_only: tuple[str, ...] = ()
    """Keys that only a command server may have (dropped when the server becomes a URL)."""


def same_name(*fields: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """Groups of one field each, spelled as the key of the same name."""
    return tuple(((field,), (field,)) for field in fields)


def spec_to_write(new: ServerSpec, old: ServerConfig | None) -> ServerSpec:
    """``new`` without the env values that came, unchanged, from the entry's env file: those
    stay in the file they were read from rather than being copied into the config."""
    if old is None or not old.env_file_keys or not isinstance(new, StdioSpec):
        return new
    before = old.spec.env if isinstance(old.spec, StdioSpec) else {}
    env = {
        key: value
        for key, value in new.env.items()
        if not (key in old.env_file_keys and before.get(key) == value)
    }
    return new.model_copy(update={"env": env})


def _same(old: ServerSpec | None, new: ServerSpec, fields: tuple[str, ...]) -> bool:
    if old is None or old.kind != new.kind:
        return False
    return all(getattr(old, field, None) == getattr(new, field, None) for field in fields)


def _assign(entry: MutableMapping[str, Any], key: str, value: Any) -> None:
    entry[key] = value


def update_connection(
    entry: MutableMapping[str, Any],
    new_entry: Mapping[str, Any],
    new: ServerSpec,
    old: ServerConfig | None,
    spelling: ConnectionSpelling,
    *,
    add: Callable[[MutableMapping[str, Any], str, Any], None] = _assign,
) -> None:
    """Make ``entry`` reach ``new`` (whose entry in the dialect's spelling is ``new_entry``).

    ``old`` is the entry as loaded (``None`` or without a spec when it had a problem: then
    every group is rewritten). ``add`` puts a key the entry lacks (after its last key, say).
    """
    before = None if old is None else old.spec
    for fields, keys in spelling.groups:
        if _same(before, new, fields):
            continue
        for key in keys:
            if key in new_entry and key in entry:
                entry[key] = new_entry[key]
            elif key in new_entry:
                add(entry, key, new_entry[key])
            elif key in entry:
                del entry[key]
    for key in spelling.url_only if isinstance(new, StdioSpec) else spelling.command_only:
        if key in entry:
            del entry[key]
