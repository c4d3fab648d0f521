"""The workspace's side of the rows: each server's source column, the rows of shadowed entries,
and what an untrusted project server's row says it would run.

In a workspace every server comes from a file (``ServerState.source``): its row shows the
file's label (``claude · local``, ``project .mcp.json``) in a column of its own, with ``+N``
when other files hold the same server (``also_in``). An entry hidden by one of the same name
in a file that takes precedence (``PluginModel.shadowed``) gets a dim row of its own, after its
winner's rows, that says which file wins. A project server waiting for trust shows everything
that decides what trusting it runs or sends (``ServerState.trust_facts``, built by
``config.entry_facts``: the command line and the executable it resolves to, env, cwd, envFile;
the URL and the headers), secrets masked, on one line, after the flagged facts in a few words
and the warning colour (an executable inside the project folder, a ``PATH`` of its own).

For one file (``--config``) no state has a source: none of this shows, and the rows are what
they were before workspaces.

Pure: no I/O, no Textual.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentty_tui.config.entry_rules import alert_summary, fact_lines, facts_line
from agentty_tui.model import PluginModel, ServerState, SourceRef, hosts_in_use
from agentty_tui.secrets import mask_url, masked_command_line
from agentty_tui.terminal_text import safe_line

__all__ = [
    "SHADOWED_KEY",
    "SOURCE_COLUMNS",
    "SOURCE_LIMIT",
    "host_lines",
    "is_project_untrusted",
    "runs_text",
    "shadowed_key",
    "source_facts",
    "source_text",
    "source_width",
    "trust_lines",
    "untrusted_segments",
]

Segment = tuple[str, str]
"""A piece of a row's text and its role (as in ``rows.py``)."""

SOURCE_COLUMNS = 80
"""From this many columns on, server rows show their source; a narrower terminal drops that
column first (the status and the error matter more, and the details show the file)."""

SOURCE_LIMIT = 30
"""Widest source column: a longer label pushes its own row, not everyone's."""

SHADOWED_KEY = "shadowed"
"""The first part of a shadowed entry's row key."""

UNTRUSTED_TEXT = "not trusted — T to trust"
"""What the row of a project server waiting for trust says."""


def source_text(state: ServerState) -> str:
    """The source column of ``state``'s row: its file's label, ``+N`` for the other files that
    hold the same server; empty for a server of one config file."""
    if state.source is None:
        return ""
    more = f" +{len(state.also_in)}" if state.also_in else ""
    return safe_line(state.source.label) + more


def source_width(model: PluginModel) -> int:
    """The source column's width for ``model``'s rows (0: no row has a source)."""
    widest = max(
        (len(source_text(state)) for state in (*model.servers, *model.shadowed)), default=0
    )
    return min(widest, SOURCE_LIMIT)


def shadowed_key(state: ServerState) -> tuple[str, ...]:
    """The row key of a shadowed entry: its name and its file (``~/.claude.json`` is two
    sources, told apart by scope)."""
    ref = state.source
    return (SHADOWED_KEY, state.name, ref.path if ref else "", ref.scope if ref else "")


def shadowed_by_name(model: PluginModel) -> dict[str, list[ServerState]]:
    """The shadowed entries of ``model``, grouped by name, in the order the model lists them."""
    groups: dict[str, list[ServerState]] = {}
    for state in model.shadowed:
        groups.setdefault(state.name, []).append(state)
    return groups


def is_project_untrusted(state: ServerState) -> bool:
    """Whether ``state`` is a project file's server waiting for the user's trust (``T`` trusts
    that server, on disk)."""
    return (
        state.status == "untrusted" and state.source is not None and state.source.scope == "project"
    )


def _bare_runs(state: ServerState) -> str:
    """A state without its trust facts (a host that builds states of its own): at least its
    command line, or its URL, credentials masked."""
    spec = state.spec
    if spec is None:
        return ""
    if spec.kind == "stdio":
        return "runs: " + safe_line(masked_command_line(spec.command, spec.args))
    return "url: " + safe_line(mask_url(spec.url))


def runs_text(state: ServerState) -> str:
    """What trusting ``state`` lets run or send, on one line: every fact of its entry
    (``facts_line``), secrets masked."""
    if state.trust_facts:
        return facts_line(state.trust_facts)
    return _bare_runs(state)


def trust_lines(state: ServerState) -> list[str]:
    """The same, a fact a line (``label  value``), for a dialog."""
    if state.trust_facts:
        return fact_lines(state.trust_facts, indent="  ")
    runs = _bare_runs(state)
    return [f"  {runs}"] if runs else []


def untrusted_segments(state: ServerState) -> list[Segment]:
    """The status part of a waiting project server's row: the flagged facts first, in a few
    words and the warning colour (a row is cut at the terminal's edge: ``⚠ runs a file of
    the project, sets PATH``), then every fact."""
    segments: list[Segment] = [(UNTRUSTED_TEXT, "status-untrusted")]
    flagged = alert_summary(state.trust_facts)
    if flagged:
        segments.append((f"  ⚠ {flagged}", "warning"))
    runs = runs_text(state)
    if runs:
        segments.append((f"  {runs}", "command"))
    return segments


def refs_of(state: ServerState) -> Iterable[SourceRef]:
    """Every file that holds ``state``'s server."""
    if state.source is not None:
        yield state.source
    yield from state.also_in


def _file(ref: SourceRef) -> str:
    return f"{safe_line(ref.path)} ({safe_line(ref.label)})"


def host_lines(state: ServerState) -> list[str]:
    """A line for each host holding the server (when more than one does, or one cannot be
    switched): what that host's model gets and where its switch is written."""
    shown = hosts_in_use(state.hosts)
    if len(shown) < 2 and all(view.tool_switch is not None for view in shown):
        return []
    lines = []
    for view in shown:
        if view.off:
            what = f"not started ({view.off_by})" if view.off_by else "not started"
        elif state.tools:
            sent = sum(view.sends(tool.bare) for tool in state.tools)
            what = f"{sent}/{len(state.tools)} tools sent"
        else:
            what = "started"
        switch = view.tool_switch or "no switch in its files: every tool is sent"
        lines.append(f"{view.source.host:<10} {what}; {switch}")
    return [safe_line(line) for line in lines]


def source_facts(state: ServerState) -> list[str]:
    """The server details' lines about its files: where the entry is (every edit goes
    there), the other files that hold the same server, and for a shadowed entry which file's
    entry wins; none for a server of one config file."""
    if state.source is None:
        return []
    lines = [f"file       {_file(state.source)}"]
    lines += [f"also in    {_file(ref)}" for ref in state.also_in]
    lines += host_lines(state)
    if state.shadowed_by is not None:
        lines.append(f"wins       {_file(state.shadowed_by)} (this entry is not started)")
    if is_project_untrusted(state):
        lines.append("trust      not trusted yet: T in the list trusts it")
    return lines
