"""The picker's filter text, parsed: name text, ``is:`` state words and ``src:`` source words.

``/`` takes words like ``is:off note``: every ``is:<state>`` word keeps the rows in that state,
the rest of the text keeps the rows whose server name, tool name or title contains it
(case-insensitive). Server states (``is:failed``, ``is:disabled`` ...) keep a server with all
its tools; tool states (``is:on``, ``is:off``, ``is:trimmed``) keep those tools under their
server's row. Words of one kind are alternatives (``is:failed is:disabled``: either), the kinds
and the name text must all hold. A word that names no state matches nothing, and the app says
which states there are.

In a workspace, ``src:<word>`` keeps the servers held by a file of that host or scope
(``src:claude``, ``src:project``, ``src:codex.user``), and ``-src:<word>`` hides those held by
no other file: a user hides or shows one host's or one scope's rows. Several ``src:`` words are
alternatives; every ``-src:`` word applies. A word naming no host or scope matches nothing.

Pure: a ``RowFilter`` is a frozen value, so it can be part of a cache key.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentty_tui.config.sources import HOSTS
from agentty_tui.model import ServerState, SourceRef, ToolState
from agentty_tui.ui.row_source import refs_of

__all__ = [
    "SERVER_STATES",
    "SOURCE_WORDS",
    "STATE_WORDS",
    "TOOL_STATES",
    "RowFilter",
    "no_such_words",
    "parse_filter",
]

SERVER_STATES: dict[str, str] = {
    "connected": "connected",
    "connecting": "connecting",
    "failed": "failed",
    "disabled": "disabled",
    "needs-login": "needs_login",
    "untrusted": "untrusted",
    "shadowed": "shadowed",
}
"""``is:`` words for a server's status, and the status each stands for."""

TOOL_STATES = ("on", "off", "trimmed")
"""``is:`` words for a tool: switched on, switched off, on but dropped by the budget."""

STATE_WORDS = tuple(f"is:{word}" for word in (*TOOL_STATES, *SERVER_STATES))
"""Every ``is:`` word, for the help and the hint of an unknown one."""

_PREFIX = "is:"
_SOURCE, _NOT_SOURCE = "src:", "-src:"
_SCOPES = ("user", "project", "local")

SOURCE_WORDS = (*HOSTS, *_SCOPES)
"""What ``src:`` takes: a host, a scope, or ``host.scope``."""


def _source_matches(word: str, ref: SourceRef) -> bool:
    return word in (ref.host, ref.scope, f"{ref.host}.{ref.scope}")


def _known_source(word: str) -> bool:
    host, _, scope = word.partition(".")
    return (host in HOSTS and scope in ("", *_SCOPES)) or (word in _SCOPES)


@dataclass(frozen=True, slots=True)
class RowFilter:
    """What the filter keeps (an empty filter keeps everything)."""

    text: str = ""
    """Name text, case-folded: a server name, tool name or title must contain it."""
    statuses: frozenset[str] = frozenset()
    """Server statuses to keep (any of them); empty: any status."""
    tool_states: frozenset[str] = frozenset()
    """Tool states to keep (any of ``TOOL_STATES``); empty: any tool."""
    unknown: tuple[str, ...] = ()
    """``is:`` (or ``src:``) words that name no state (or source), as typed: while there is
    one, nothing matches."""
    sources: frozenset[str] = frozenset()
    """``src:`` words: keep a server held by a file of any of them; empty: any file."""
    hidden_sources: frozenset[str] = frozenset()
    """``-src:`` words: hide a server whose every file matches one of them."""

    @property
    def active(self) -> bool:
        """Whether the filter leaves anything out."""
        return bool(
            self.text
            or self.statuses
            or self.tool_states
            or self.unknown
            or self.sources
            or self.hidden_sources
        )

    def keeps_server(self, state: ServerState) -> bool:
        """Whether the server's status and files pass (the name text is checked with the
        tools)."""
        if self.unknown or (self.statuses and state.status not in self.statuses):
            return False
        if not self.sources and not self.hidden_sources:
            return True
        refs = tuple(refs_of(state))
        if self.sources and not any(
            _source_matches(word, ref) for word in self.sources for ref in refs
        ):
            return False
        hidden = [any(_source_matches(w, ref) for w in self.hidden_sources) for ref in refs]
        return not (self.hidden_sources and refs and all(hidden))

    def keeps_tool(self, tool: ToolState, trimmed: frozenset[str]) -> bool:
        """Whether the tool's state passes; ``trimmed`` holds its server's trimmed tools."""
        if not self.tool_states:
            return True
        is_trimmed = tool.enabled and tool.bare in trimmed
        return (
            ("on" in self.tool_states and tool.enabled)
            or ("off" in self.tool_states and not tool.enabled)
            or ("trimmed" in self.tool_states and is_trimmed)
        )

    def tools_of(self, state: ServerState, trimmed: frozenset[str]) -> tuple[ToolState, ...] | None:
        """The server's tools the filter keeps, or ``None`` when it leaves the server out.

        A server whose name matches the text keeps all its tools (of the states asked for);
        otherwise only the tools whose bare name or label matches the text do.
        """
        if not self.keeps_server(state):
            return None
        tools = state.tools
        if self.tool_states:
            tools = tuple(tool for tool in tools if self.keeps_tool(tool, trimmed))
        text = self.text
        if text and not _matches(text, state.name):
            tools = tuple(tool for tool in tools if _matches(text, tool.bare, tool.label))
        if not tools and (self.tool_states or text):
            return None
        return tools


def _matches(needle: str, *haystacks: str | None) -> bool:
    return any(needle in hay.casefold() for hay in haystacks if hay)


def parse_filter(text: str) -> RowFilter:
    """Split the filter field's text into state words and name text."""
    words: list[str] = []
    statuses: set[str] = set()
    tool_states: set[str] = set()
    unknown: list[str] = []
    sources: dict[str, set[str]] = {_SOURCE: set(), _NOT_SOURCE: set()}
    for word in text.split():
        folded = word.casefold()
        prefix = next((p for p in sources if folded.startswith(p)), None)
        if prefix is not None:
            value = folded[len(prefix) :]
            if _known_source(value):
                sources[prefix].add(value)
            else:
                unknown.append(word)
            continue
        if not folded.startswith(_PREFIX):
            words.append(folded)
            continue
        state = folded[len(_PREFIX) :].replace("_", "-")
        if state in SERVER_STATES:
            statuses.add(SERVER_STATES[state])
        elif state in TOOL_STATES:
            tool_states.add(state)
        else:
            unknown.append(word)
    return RowFilter(
        text=" ".join(words),
        statuses=frozenset(statuses),
        tool_states=frozenset(tool_states),
        unknown=tuple(unknown),
        sources=frozenset(sources[_SOURCE]),
        hidden_sources=frozenset(sources[_NOT_SOURCE]),
    )


def no_such_words(unknown: tuple[str, ...]) -> str:
    """What the empty list says of filter words that name no state or source: which there
    are."""
    states, words = " ".join(STATE_WORDS), " ".join(unknown)
    if all(word.casefold().startswith(_PREFIX) for word in unknown):
        return f"No such state: {words} (there are {states})"
    return (
        f"No such state or source: {words} (states: {states}; sources: src: or -src: with one"
        f" of {' '.join(SOURCE_WORDS)}, or host.scope)"
    )
