"""The seam between the store and one config file format ("dialect").

The store does the file work (locking, atomic replace, re-reading); a dialect only turns text into a
document plus a validated config, applies an edit to a document, and turns a document back into text
that looks like the original. Claude-style ``mcpServers`` JSON (``hosts/mcpjson.py``), Gemini's
``settings.json`` (``hosts/gemini.py``), VS Code's JSON with comments (``hosts/vscode.py``) and
Codex's TOML (``hosts/codex.py``) implement the same protocol, and ``detect.py`` picks one for a
file."""

from __future__ import annotations

from typing import Any, Protocol

from agentty_tui.config.engine import ConfigEdit
from agentty_tui.specs import PluginConfig

__all__ = ["Dialect"]


class Dialect(Protocol):
    """How one config format is parsed, edited and written back.

    A document is whatever the dialect needs to write the file back faithfully (a dict for plain
    JSON, a format-preserving tree for formats with comments). The store never looks inside it.
    Texts are passed with ``\\n`` line endings; the store restores the file's own.
    """

    name: str
    """What ``dialect_by_name`` calls it (``claude``, ``gemini``, ``vscode``, ``codex``)."""

    @property
    def timeout_fields(self) -> tuple[str, ...]:
        """Which of ``ServerConfig``'s timeouts (``connect_timeout``, ``request_timeout``) the
        format can hold, so an import can say what it could not carry over."""
        ...

    def parse(self, text: str, path: str | None) -> tuple[Any, PluginConfig]:
        """Parse and validate ``text``; whitespace-only text is an empty config.

        Raises ``ConfigError`` naming ``path`` and the line and column or server and field.
        """
        ...

    def apply(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """Return a new document with ``edit`` applied; the given one is not changed."""
        ...

    def dump(self, document: Any, like: str | None) -> str:
        """Render ``document`` formatted like the text ``like`` (``None``: a new file)."""
        ...
