"""Which files of a workspace a new server may be added to, for the picker's add form.

Our user file is the default (``Workspace.add_to``) and always offered, as are the project's
``.mcp.json`` and Claude Code's local scope (this project, this user) whether or not the files
exist yet: adding creates them. Another host's file is offered only once it exists and reads
without a problem: creating a host's file from nothing, or writing one that does not parse, is
not what a user adding a server means.
"""

from __future__ import annotations

from agentty_tui.config.workspace import Workspace
from agentty_tui.model import SourceRef

__all__ = ["add_targets"]


def _always(ref: SourceRef) -> bool:
    return ref.host == "claude" and ref.scope in ("project", "local")


def add_targets(workspace: Workspace) -> tuple[SourceRef, ...]:
    """The files a new server may go to: the default first, then the others in precedence
    order (local, project, user)."""
    readable = {
        report.source.ref
        for report in workspace.reports
        if report.exists and report.problem is None
    }
    if not workspace.reports:  # not loaded yet: what is on disk
        readable = {source.ref for source in workspace.sources if source.path.is_file()}
    others = [
        source.ref
        for source in workspace.sources
        if source.ref != workspace.add_to and (_always(source.ref) or source.ref in readable)
    ]
    return (workspace.add_to, *others)
