"""The first run's offer: import the servers of another host's config file (``i``).

``ImportScreen`` lists the files ``config.discover`` found, each with its server count, and
dismisses with the one chosen. ``import_host_file`` then runs the same plan and apply as
``agentty-tui import`` into the picker's own config; the picker reloads it afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentty_tui.config import ConfigStore
from agentty_tui.config.detect import dialect_by_name
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import apply_import, plan_import
from agentty_tui.terminal_text import safe_line
from agentty_tui.ui.modal import Dialog

__all__ = ["ImportScreen", "import_host_file"]


def import_host_file(source: HostFile, target: Path) -> tuple[str, bool]:
    """Import ``source``'s servers into the config at ``target`` (created if missing), as
    ``agentty-tui import --yes`` does; ``(what happened, whether all went well)``.

    Reads and writes files: run it off the event loop. ``ConfigError`` when a file is refused.
    """
    config = ConfigStore(source.path, dialect=dialect_by_name(source.dialect)).load()
    store = ConfigStore(target)
    plan = plan_import(config, store.load(), carried=store.dialect.timeout_fields)
    if not plan.add:
        return f"Nothing to import from {source.path}: {plan.describe()}", True
    result = apply_import(plan, store)
    lines = [
        f"Imported {len(result.added)} server(s) from {source.host}: {', '.join(result.added)}."
    ]
    lines += [f"Not added {name!r}: {why}" for name, why in result.failed]
    return "\n".join(lines), not result.failed


class ImportScreen(Dialog[HostFile | None]):
    """The host files found, one a line with its server count; enter imports the one chosen."""

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
            yield Static("enter imports the file; escape closes", classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a file imports it."""
        event.stop()
        if event.option.id is not None:
            self.dismiss(self._files[int(event.option.id)])

    def action_cancel(self) -> None:
        """Close without importing."""
        self.dismiss(None)
