"""The first run's offer: import the servers of another host's config file (``i``).

``ImportScreen`` lists the files ``config.discover`` found, each with its server count, and
dismisses with the one chosen. The source then plans the import (``PluginSource.import_plan``:
the same plan as ``agentty-tui import``, into the picker's own config), ``import_question``
shows it, as ``import`` prints it, for a yes or no before anything is written; on a yes the
source writes it and reloads (``PluginSource.import_servers``), and ``import_said`` says how it
went. A project's file (a folder's ``.mcp.json``) is not trusted by the import: its servers are
copied disabled.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import ImportResult, PreparedImport
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.dialogs import Dialog

__all__ = ["ImportScreen", "import_question", "import_said"]


def import_question(prepared: PreparedImport) -> str:
    """The plan as ``agentty-tui import`` prints it, then the question."""
    source, target = safe_line(str(prepared.source.path)), safe_line(str(prepared.target))
    lines = [f"From {safe_line(prepared.source.host)}: {source}", prepared.plan.describe()]
    if prepared.source.project:
        lines.append(
            "It is a project's file: what it runs is not trusted, so its servers are added "
            "disabled (space on a server's row enables it, once you trust it)."
        )
    lines.append(f"Add {len(prepared.plan.add)} server(s) to {target}?")
    return "\n\n".join(lines)


def import_said(prepared: PreparedImport, result: ImportResult) -> tuple[str, bool]:
    """What writing ``prepared``'s additions did (a name taken meanwhile is refused and said):
    ``(what happened, whether all went well)``."""
    parked = ", disabled" if prepared.source.project else ""
    names, host = ", ".join(result.added), prepared.source.host
    lines = [f"Imported {len(result.added)} server(s){parked} from {host}: {names}."]
    lines += [f"Not added {name!r}: {why}" for name, why in result.failed]
    return "\n".join(lines), not result.failed


class ImportScreen(Dialog[HostFile | None]):
    """The host files found, one a line with its server count; enter chooses one (its plan is
    shown and asked about next)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#import-files"

    def __init__(self, files: tuple[HostFile, ...], target: str) -> None:
        super().__init__()
        self._files = files
        self._target = target

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="import"):
            yield Static("Import servers from another host", classes="dialog-title")
            yield Static(
                f"Into {safe_line(self._target)}: the chosen file is only read.", markup=False
            )
            yield OptionList(
                *(
                    Option(
                        Content(safe_line(found.describe())),
                        id=str(number),
                        disabled=bool(found.problem),
                    )
                    for number, found in enumerate(self._files)
                ),
                id="import-files",
            )
            yield Static("enter shows the plan, then asks; escape closes", classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a file chooses it."""
        event.stop()
        if event.option.id is not None:
            self.dismiss(self._files[int(event.option.id)])

    def action_cancel(self) -> None:
        """Close without importing."""
        self.dismiss(None)
