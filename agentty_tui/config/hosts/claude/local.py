"""Claude Code's "local" scope: one project's servers inside ``~/.claude.json``.

Claude Code keeps the servers a user added for one project only (not checked into its
repository) under ``projects["<absolute project root>"].mcpServers`` of ``~/.claude.json``, a large
file it rewrites often and that holds much else (start counts, tips, per-project history and
allowed tools, and the user scope's top-level ``mcpServers``, which ``McpJsonDialect`` reads).

``ClaudeLocalDialect(root)`` reads and edits that one project's ``mcpServers`` and nothing else:
the entries are spelled as ``McpJsonDialect`` reads them and written as Claude Code writes them
(``entries``), and an edit is the McpJson
engine's edit applied to the project's object, put back into a copy of the whole document. Only
the project's own text is spliced when the file is written (the JSONC splicer, given the whole
file's layout), so every other byte stays as Claude Code wrote it and a file of megabytes is not
parsed into a tree for one edit; the store's re-read and re-check keep an edit Claude Code made
meanwhile.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from agentty_tui.config.documents.formats import LazyObject, refuse_duplicates, whole_parses
from agentty_tui.config.documents.jsonc import splice
from agentty_tui.config.documents.jsonlayout import JsonStyle
from agentty_tui.config.documents.jsonspan import value_span
from agentty_tui.config.engine import ConfigEdit
from agentty_tui.config.hosts.claude.entries import ClaudeCodeDialect
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY
from agentty_tui.config.raw import json_type, server_or_problem, validate_server
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.specs import PluginConfig, ServerConfig

__all__ = ["PROJECTS_KEY", "ClaudeLocalDialect"]

PROJECTS_KEY = "projects"
"""The top-level key of ``~/.claude.json`` that maps project roots to their settings."""


class _ProjectServers(ClaudeCodeDialect):
    """The McpJson engine over one project's object (entries written as Claude Code writes
    them): servers only, no catalog settings.

    ``toolBudget`` and ``nativeTools`` are our keys of a whole file; a project object is Claude
    Code's, and whatever it holds besides ``mcpServers`` is not read.
    """

    def validate(self, value: Any, path: str | None) -> PluginConfig:
        """The servers of a project object, each valid or carrying its problem (the engine
        reads an entry's old connection here)."""
        servers = value.get(SERVERS_KEY, {})
        if not isinstance(servers, Mapping):
            raise ConfigError(self.format.map_message, path=path, field=SERVERS_KEY)
        return PluginConfig(
            servers=tuple(server_or_problem(str(name), e, path) for name, e in servers.items())
        )


class ClaudeLocalDialect:
    """``~/.claude.json`` seen as the servers of one project (Claude Code's "local" scope).

    Implements the ``Dialect`` protocol: ``parse`` gives the project's servers (none when the
    project or its ``mcpServers`` is absent), ``apply`` changes only that project's
    ``mcpServers`` (making ``projects[root]`` and its server map when an added server needs
    them), and ``dump`` writes the whole file back with every other byte as it was. The
    top-level ``mcpServers`` (the user scope) is never read or written here.
    """

    name = "claude-local"
    """The dialect's name (a source's dialect in listings; not one ``--format`` takes)."""

    def __init__(self, project_root: str | os.PathLike[str]) -> None:
        """The dialect of the project whose root folder is ``project_root`` (an absolute path,
        spelled as Claude Code keys it: the folder it was started in, no trailing slash)."""
        root = os.fspath(project_root)
        if not os.path.isabs(root):
            raise ValueError(f"a project root must be an absolute path, not {root!r}")
        self.project_root = os.path.normpath(root)
        """The key of the project under ``projects``."""
        self._engine = _ProjectServers()
        self.format = self._engine.format
        """The document format: plain JSON, spliced when not in our own layout."""

    def __repr__(self) -> str:
        return f"ClaudeLocalDialect({self.project_root!r})"

    @property
    def project_field(self) -> str:
        """Where the project sits in the file, as messages name it: ``projects["/x"]``."""
        return f"{PROJECTS_KEY}[{json.dumps(self.project_root, ensure_ascii=False)}]"

    @property
    def servers_field(self) -> str:
        """Where its servers sit: ``projects["/x"].mcpServers``."""
        return f"{self.project_field}.{SERVERS_KEY}"

    @property
    def timeout_fields(self) -> tuple[str, ...]:
        """The timeouts an entry can hold: those of ``McpJsonDialect``."""
        return self._engine.timeout_fields

    # --- the Dialect protocol ---------------------------------------------------------------

    def parse(self, text: str, path: str | None) -> tuple[Any, PluginConfig]:
        """Parse the whole file and validate the project's servers; a bad entry carries its
        problem (file, server and project named) and never stops the others."""
        loaded = self.format.load(text, path)
        project = self._project(loaded.value, path)
        servers = {} if project is None else project.get(SERVERS_KEY, {})
        if not isinstance(servers, Mapping):
            raise ConfigError(
                f"must be an object mapping server names to entries, not {json_type(servers)}",
                path=path,
                field=self.servers_field,
            )
        configs = tuple(self._server(str(name), entry, path) for name, entry in servers.items())
        warnings = loaded.warnings
        projects = loaded.value.get(PROJECTS_KEY)
        if isinstance(projects, LazyObject):  # read in parts: the project's repeated keys
            warnings += projects.warnings
        shared = whole_parses()
        if shared is not None:  # an edit: its dump compares with this, not parsed once more
            shared[self] = (text, loaded.value)
        return loaded.document, PluginConfig(servers=configs, warnings=warnings)

    def apply(self, document: Any, edit: ConfigEdit, path: str | None) -> Any:
        """A copy of ``document`` with ``edit`` applied to the project's ``mcpServers``; every
        other value is shared with ``document``, which is left as it was."""
        refuse_duplicates(self.format.duplicates(document), path)
        project = self._project(document, path)
        before: dict[str, Any] = {} if project is None else dict(project)
        try:
            after = self._engine.edit(before, edit, path)
        except ConfigError as error:
            raise self._in_project(error) from None
        except UnknownServerError as error:
            raise UnknownServerError(
                error.name, self._names(before), where=f"{path or 'the file'}, {self.servers_field}"
            ) from None
        if project is not None and after == project:
            return document
        edited = dict(document)
        edited[PROJECTS_KEY] = {**document.get(PROJECTS_KEY, {}), self.project_root: after}
        return edited

    def dump(self, document: Any, like: str | None) -> str:
        """The whole file's text, laid out like ``like``.

        When only this project changed (what ``apply`` does), only the project's own text is
        spliced: the rest of the file is copied as it was, without being parsed again, which
        keeps an edit of a file of megabytes quick. Anything else (a new project, another
        change) goes the JSON format's way (our layout rewritten, any other spliced).
        """
        if like is not None:
            spliced = self._splice_project(document, like)
            if spliced is not None:
                return spliced
        return self.format.dump(document, like)

    # --- helpers ----------------------------------------------------------------------------

    def _project(self, value: Any, path: str | None) -> Mapping[str, Any] | None:
        """The project's object, ``None`` when the file has none; a wrong type is refused."""
        if not isinstance(value, Mapping):
            raise ConfigError(f"the top level must be an object, not {json_type(value)}", path=path)
        if PROJECTS_KEY not in value:
            return None
        projects = value[PROJECTS_KEY]
        if not isinstance(projects, Mapping):
            raise ConfigError(
                f"must be an object mapping project folders to their settings, "
                f"not {json_type(projects)}",
                path=path,
                field=PROJECTS_KEY,
            )
        if self.project_root not in projects:
            return None
        project = projects[self.project_root]
        if not isinstance(project, Mapping):
            raise ConfigError(
                f"must be an object (the project's settings), not {json_type(project)}",
                path=path,
                field=self.project_field,
            )
        return project

    def _server(self, name: str, entry: object, path: str | None) -> ServerConfig:
        """One entry, or one carrying its problem with the project named."""
        try:
            return validate_server(name, entry, path=path)
        except ConfigError as error:
            return ServerConfig(name=name, problem=str(self._in_project(error)))

    def _in_project(self, error: ConfigError) -> ConfigError:
        """``error`` with its field said from the top of the file (``projects["/x"]...``)."""
        if error.server is None:
            field = f"{self.project_field}.{error.field or SERVERS_KEY}"
        else:
            field = f"{self.servers_field}[{json.dumps(error.server, ensure_ascii=False)}]"
            if error.field:
                field += f".{error.field}"
        return ConfigError(
            error.detail,
            path=error.path,
            line=error.line,
            column=error.column,
            server=error.server,
            field=field,
        )

    def _splice_project(self, document: Any, like: str) -> str | None:
        """``like`` with the project's text spliced to hold the document's project; ``None``
        when the file has no such project or the document differs from it elsewhere."""
        try:
            span = value_span(like, (PROJECTS_KEY, self.project_root))
            shared = whole_parses()
            parsed = None if shared is None else shared.get(self)
            # ``like`` is the text parse read (the store's edit): its value is at hand.
            reuse = parsed is not None and parsed[0] is like and isinstance(parsed[1], dict)
            if reuse:
                assert parsed is not None
                old = parsed[1] if span is not None else None
            else:
                old = json.loads(like) if span is not None else None
        except ValueError:
            return None
        if span is None or not isinstance(old, dict) or not isinstance(document, Mapping):
            return None
        projects = document.get(PROJECTS_KEY)
        if not isinstance(projects, Mapping) or self.project_root not in projects:
            return None
        project = projects[self.project_root]
        expected = {**old, PROJECTS_KEY: {**old[PROJECTS_KEY], self.project_root: project}}
        # Key order is text too: a document that moved a key is no case for a local splice.
        if expected != document or list(expected) != list(document):
            return None
        if list(expected[PROJECTS_KEY]) != list(projects):
            return None
        start, end = span
        line = like[like.rfind("\n", 0, start) + 1 : start]
        # Cut out with its line's indentation, the project's text is laid out as in the file.
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        edited = splice(indent + like[start:end], project, style=JsonStyle.of(like))
        return like[:start] + edited[len(indent) :] + like[end:]

    @staticmethod
    def _names(project: Mapping[str, Any]) -> list[str]:
        servers = project.get(SERVERS_KEY)
        return [str(name) for name in servers] if isinstance(servers, Mapping) else []
