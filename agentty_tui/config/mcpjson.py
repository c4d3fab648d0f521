"""Claude Desktop / Claude Code / Cursor ``mcpServers`` JSON: the dialect of ``mcp.json``.

Plain JSON (no comments) with a top-level ``mcpServers`` object; a tool turned off is written as
our ``tools.exclude``, a disabled server as our ``disabled`` key.
"""

from __future__ import annotations

import json
from typing import Any

from agentty_tui.config.dialect import JsonStyle, dump_json
from agentty_tui.config.edits import ConfigEdit, apply_edit
from agentty_tui.config.jsonc import check_nesting, duplicate_key_warnings, parse_jsonc
from agentty_tui.config.jsonc_edit import splice
from agentty_tui.config.raw import validate_document
from agentty_tui.errors import ConfigError
from agentty_tui.model import PluginConfig

__all__ = ["McpJsonDialect"]


class _DuplicateKeys(dict[str, Any]):
    """A parsed JSON object whose text had repeated keys somewhere (last one wins)."""

    def __init__(self, document: dict[str, Any], duplicates: list[str]) -> None:
        super().__init__(document)
        self.duplicates = duplicates


class McpJsonDialect:
    """Plain JSON with a top-level ``mcpServers`` object (Claude Desktop / Code, Cursor)."""

    timeout_fields: tuple[str, ...] = ("connect_timeout", "request_timeout")
    """``connectTimeout`` and ``requestTimeout``, in seconds (ours)."""

    def __init__(self) -> None:
        self._written: str | None = None
        """The text of the last fast-path dump: a file still holding it needs no layout check."""

    def parse(self, text: str, path: str | None) -> tuple[Any, PluginConfig]:
        """Parse JSON text and validate it; syntax errors carry line and column."""
        if not text.strip():
            return {}, PluginConfig()
        duplicates: list[str] = []

        def pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            result = dict(pairs)
            if len(result) != len(pairs):
                seen: set[str] = set()
                for key, _ in pairs:
                    if key in seen:
                        duplicates.append(key)
                    seen.add(key)
            return result

        check_nesting(text, path)
        try:
            document = json.loads(text, object_pairs_hook=pairs_to_dict)
        except json.JSONDecodeError as error:
            raise ConfigError(
                f"invalid JSON: {error.msg}", path=path, line=error.lineno, column=error.colno
            ) from None
        config = validate_document(document, path=path)
        if duplicates:
            # The standard parser does not say where; the JSONC one (plain JSON is JSONC) does.
            repeated_at = parse_jsonc(text, path).repeated_at
            warnings = duplicate_key_warnings(text, repeated_at, path)
            config = config.model_copy(update={"warnings": warnings})
            # Like every JSON reader, the last of duplicate keys wins for reading; but rewriting
            # would silently drop the others, so the document remembers them to refuse edits.
            document = _DuplicateKeys(document, duplicates)
        return document, config

    def apply(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """Apply ``edit`` to a parsed JSON object (see ``edits.apply_edit``).

        A file with duplicate keys is refused: writing it back would lose all but one of them.
        """
        if isinstance(document, _DuplicateKeys):
            names = ", ".join(repr(key) for key in dict.fromkeys(document.duplicates))
            raise ConfigError(
                f"the file repeats the key(s) {names}; remove the duplicates before editing",
                path=path,
            )
        return apply_edit(document, edit, path=path)

    def dump(self, document: Any, like: str | None) -> str:
        """``document`` as JSON, the file's own layout kept.

        A file already laid out the way ``dump_json`` writes it is written again that way (the
        fast path). Any other layout (objects on one line, an odd indent) is edited by
        splicing: only the text of what changed is rewritten, every other byte stays.
        """
        style = JsonStyle.of(like)
        canonical = (
            like is None
            or not like.strip()
            or like == self._written  # our own last write, as it usually is: no re-check
            or dump_json(json.loads(like), style) == like
        )
        if not canonical:
            assert like is not None
            return splice(like, document)
        text = dump_json(document, style)
        self._written = text
        return text
