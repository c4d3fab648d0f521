"""Claude Code's MCP server policy: ``allowedMcpServers`` and ``deniedMcpServers``.

Any of Claude Code's settings files may hold them (measured with 2.1.197 in the user's
``~/.claude/settings.json``: a denied server, or one an allowlist leaves out, is not started
and none of its tools is sent). Each entry names a server by ``serverName``, by
``serverCommand`` (the command and its arguments, exactly) or by ``serverUrl`` (``*`` matches
any run of characters). The lists of every file are joined; a denial wins over an allowance;
with no allowlist anywhere every server is allowed, and an empty one allows none. Once the
allowlists hold a ``serverCommand`` entry, a stdio server is allowed only by its command (its
name no longer counts), and likewise a remote server by ``serverUrl`` once one is listed (read
in the program). With ``allowManagedMcpServersOnly`` in the managed settings, only the managed
allowlists count. The allowlists apply to the servers of ``managed-mcp.json`` too.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentty_tui.specs import HttpSpec, ServerSpec, StdioSpec

__all__ = ["ServerPolicy", "ServerRule", "policy_of"]

ALLOWED_KEY = "allowedMcpServers"
DENIED_KEY = "deniedMcpServers"
MANAGED_ONLY_KEY = "allowManagedMcpServersOnly"


@dataclass(frozen=True, slots=True)
class ServerRule:
    """One entry of an allowlist or a denylist."""

    where: str
    """``deniedMcpServers in ~/.claude/settings.json``, for a row."""
    name: str | None = None
    """``serverName``."""
    command: tuple[str, ...] | None = None
    """``serverCommand``: the command and its arguments."""
    url: str | None = None
    """``serverUrl``, ``*`` a wildcard."""

    def matches(self, name: str, spec: ServerSpec | None) -> bool:
        """Whether this entry names the server ``name`` reached by ``spec``."""
        if self.name is not None:
            return self.name == name
        if self.command is not None:
            return isinstance(spec, StdioSpec) and (spec.command, *spec.args) == self.command
        if self.url is not None:
            return isinstance(spec, HttpSpec) and fnmatch.fnmatchcase(spec.url, self.url)
        return False


@dataclass(frozen=True, slots=True)
class ServerPolicy:
    """What the policy of every settings file says together."""

    allowed: tuple[ServerRule, ...] | None = None
    """The allowlists joined; ``None``: no file has one (every server allowed)."""
    allowed_in: tuple[str, ...] = ()
    """Where the allowlists are, for a row."""
    denied: tuple[ServerRule, ...] = ()
    """The denylists joined."""

    def blocks(self, name: str, spec: ServerSpec | None) -> str | None:
        """Why the policy keeps the server ``name`` from starting (``None``: it does not)."""
        for rule in self.denied:
            if rule.matches(name, spec):
                return rule.where
        if self.allowed is not None and not any(
            r.matches(name, spec) for r in self._allowing(spec)
        ):
            return f"not in {', '.join(self.allowed_in) or 'an empty allowedMcpServers'}"
        return None

    def _allowing(self, spec: ServerSpec | None) -> tuple[ServerRule, ...]:
        """The allowlist entries that may allow a server reached by ``spec``, as Claude Code
        picks them (read in its program): once the allowlists hold a ``serverCommand``, a
        stdio server is allowed by its command alone, its name no longer counts; likewise a
        ``serverUrl`` for a remote server; otherwise by name."""
        allowed = self.allowed or ()
        for kind, key in ((StdioSpec, "command"), (HttpSpec, "url")):
            if isinstance(spec, kind) and any(getattr(r, key) is not None for r in allowed):
                return tuple(r for r in allowed if getattr(r, key) is not None)
        return tuple(r for r in allowed if r.name is not None)


def _rules(value: Any, where: str, problems: list[str]) -> tuple[ServerRule, ...] | None:
    """The entries of one list (``None`` when the key is absent)."""
    if value is None:
        return None
    if not isinstance(value, list):
        problems.append(f"{where}: must be an array of servers; not read")
        return ()
    found: list[ServerRule] = []
    for item in value:
        if not isinstance(item, Mapping):
            problems.append(f"{where}: an entry is not an object; left out")
            continue
        name, command, url = (
            item.get("serverName"),
            item.get("serverCommand"),
            item.get("serverUrl"),
        )
        if isinstance(name, str):
            found.append(ServerRule(where, name=name))
        elif isinstance(command, list) and all(isinstance(word, str) for word in command):
            found.append(ServerRule(where, command=tuple(command)))
        elif isinstance(url, str):
            found.append(ServerRule(where, url=url))
        else:
            problems.append(f"{where}: an entry names no serverName, serverCommand or serverUrl")
    return tuple(found)


def policy_of(
    settings: Sequence[tuple[str, Mapping[str, Any], bool]], problems: list[str]
) -> ServerPolicy:
    """The policy of ``settings`` (each file as shown, its object, and whether it is a managed
    one), its problems added to ``problems``."""
    managed_only = any(
        managed and value.get(MANAGED_ONLY_KEY) is True for _, value, managed in settings
    )
    allowed: list[ServerRule] | None = None
    allowed_in: list[str] = []
    denied: list[ServerRule] = []
    for shown, value, managed in settings:
        deny = _rules(value.get(DENIED_KEY), f"{DENIED_KEY} in {shown}", problems)
        denied += deny or ()
        if managed_only and not managed:
            continue
        allow = _rules(value.get(ALLOWED_KEY), f"{ALLOWED_KEY} in {shown}", problems)
        if allow is not None:
            allowed = [*(allowed or []), *allow]
            allowed_in.append(f"{ALLOWED_KEY} in {shown}")
    return ServerPolicy(
        allowed=None if allowed is None else tuple(allowed),
        allowed_in=tuple(allowed_in),
        denied=tuple(denied),
    )
