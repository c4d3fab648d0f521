"""Demo MCP server ``notes``: a small, ordinary in-memory notebook.

A fixed set of four tools, nothing gated: the everyday kind of plugin.

    add_note(title, body, tags)  store a note, return its id
    list_notes(tag)              one line per note, optionally only one tag
    search_notes(query)          case-insensitive search in titles, bodies and tags
    delete_note(note_id)         forget a note

Notes live in memory and vanish when the server exits. Run with
``python -m agentty_tui.demo.notes`` or the ``agentty-demo-notes`` script.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from agentty_tui.demo._serve import configure_logging, run_stdio


@dataclass
class _Note:
    id: int
    title: str
    body: str
    tags: tuple[str, ...] = ()


@dataclass
class _Notebook:
    notes: dict[int, _Note] = field(default_factory=dict)
    next_id: int = 1

    def add(self, title: str, body: str, tags: tuple[str, ...]) -> _Note:
        note = _Note(self.next_id, title, body, tags)
        self.notes[note.id] = note
        self.next_id += 1
        return note


def _line(note: _Note) -> str:
    tags = f"  [{', '.join(note.tags)}]" if note.tags else ""
    return f"#{note.id} {note.title}{tags}"


def build_server() -> MCPServer:
    """Build the notes server with an empty notebook."""
    server: MCPServer = MCPServer(
        "notes",
        version="1.0.0",
        instructions="An in-memory notebook. Notes are lost when the server stops.",
        log_level="WARNING",
    )
    book = _Notebook()

    @server.tool(
        title="Add note",
        description="Store a new note and return its id.",
    )
    def add_note(
        title: Annotated[str, Field(description="Short title, shown in listings.")],
        body: Annotated[str, Field(description="The note's text.")] = "",
        tags: Annotated[list[str], Field(description="Optional tags for filtering.")] = [],  # noqa: B006
    ) -> str:
        if not title.strip():
            raise ToolError("a note needs a title")
        note = book.add(title.strip(), body, tuple(t.strip() for t in tags if t.strip()))
        return f"added note #{note.id}"

    @server.tool(
        title="List notes",
        description="List all notes, one per line, optionally only those with a tag.",
        annotations=ToolAnnotations(read_only_hint=True),
    )
    def list_notes(
        tag: Annotated[str | None, Field(description="Only notes carrying this tag.")] = None,
    ) -> str:
        notes = [n for n in book.notes.values() if tag is None or tag in n.tags]
        return "\n".join(_line(n) for n in notes) or "no notes"

    @server.tool(
        title="Search notes",
        description="Case-insensitive search in note titles, bodies and tags.",
        annotations=ToolAnnotations(read_only_hint=True),
    )
    def search_notes(
        query: Annotated[str, Field(description="Text to look for.", min_length=1)],
    ) -> str:
        q = query.casefold()
        hits = [
            n
            for n in book.notes.values()
            if q in n.title.casefold()
            or q in n.body.casefold()
            or any(q in t.casefold() for t in n.tags)
        ]
        return "\n".join(f"{_line(n)}: {n.body}" for n in hits) or f"nothing matches {query!r}"

    @server.tool(
        title="Delete note",
        description="Delete a note by id.",
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True),
    )
    def delete_note(
        note_id: Annotated[int, Field(description="The id shown as #N in listings.")],
    ) -> str:
        if book.notes.pop(note_id, None) is None:
            raise ToolError(f"no note #{note_id}")
        return f"deleted note #{note_id}"

    return server


def main() -> None:
    """Entry point of ``agentty-demo-notes``."""
    configure_logging()
    run_stdio(build_server())


if __name__ == "__main__":
    main()
