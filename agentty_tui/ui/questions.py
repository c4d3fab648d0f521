"""What the picker asks before it changes a file: the texts of its confirmations.

Removing a server (``remove_question``: which file, and what stops with it, or only the shadowed
entry), trusting one server of a workspace (``trust_server_question``, with the facts the user
trusts) and trusting the config file (``trust_config_question``). Every path or name a file
wrote is made one safe line; the dialogs show the text as plain text.

Pure: no I/O, no Textual.
"""

from __future__ import annotations

from agentty_tui.model import HttpSpec, ServerState
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.row_source import is_project_untrusted, trust_lines

__all__ = [
    "remove_effect",
    "remove_question",
    "remove_shadowed_question",
    "trust_config_question",
    "trust_server_question",
]

_NOT_RUNNING = {
    "untrusted": "not trusted",
    "disabled": "disabled",
    "failed": "it failed",
    "needs_login": "it needs a login",
}


def remove_effect(state: ServerState) -> str:
    """What removing the server does besides the file: its process stopped, its connection
    ended (a URL server has no process of ours), or nothing, when neither runs."""
    remote = isinstance(state.spec, HttpSpec)
    if state.status in ("connecting", "connected"):
        return "It is disconnected." if remote else "Its process is stopped."
    why = _NOT_RUNNING.get(state.status)
    what = "It is not connected" if remote else "It is not running"
    return f"{what}{f' ({why})' if why else ''}, so nothing is stopped."


def remove_shadowed_question(state: ServerState) -> str:
    """The confirmation of removing a shadowed entry from its own file."""
    by = state.shadowed_by
    where = safe_line(state.source.path) if state.source is not None else "its file"
    winner = f"{by.label} ({safe_line(by.path)})" if by is not None else "another file"
    return (
        f"Remove the entry {state.name!r} from {where}?\n"
        f"It is shadowed by {winner}, which stays and keeps running."
    )


def remove_question(state: ServerState) -> str:
    """The confirmation of removing the server: from the file the question names (a shadowed
    entry from its own file, the one that wins staying), and what stops with it."""
    where = state.source
    if state.status == "shadowed" and where is not None:
        return remove_shadowed_question(state)
    file = "the config" if where is None else safe_line(where.path)
    return f"Remove server {state.name!r} from {file}?\n{remove_effect(state)}"


def trust_server_question(state: ServerState, *, changed: bool = False) -> str:
    """The confirmation of trusting one waiting server of a workspace: a project's server
    (remembered while its entry stays the same) or one of a file others can write (this run),
    with the facts of its entry; ``changed``: asked again, the entry having changed under the
    first question."""
    name = state.name
    where = f" of {safe_line(state.source.path)}" if state.source else ""
    facts = "\n".join(trust_lines(state))
    lead = "Its entry changed while you were asked; this is it now.\n\n" if changed else ""
    if is_project_untrusted(state):
        return (
            f"{lead}Trust the project server {name!r}{where}?\n{facts}\n\n"
            "It starts now, and in later runs while its entry stays the same."
        )
    return (  # a file others can write
        f"{lead}{state.error or 'Its file is not trusted.'}\n\nTrust {name!r}{where} "
        f"for this run and start it as you?\n{facts}"
    )


def trust_config_question(problem: str) -> str:
    """The confirmation of trusting the config file for this run, after why it is not."""
    return f"{problem}\n\nTrust it for this run and start its servers as you?"
