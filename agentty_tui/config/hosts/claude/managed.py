"""Claude Code's managed MCP file: ``managed-mcp.json``, which an administrator puts beside the
managed settings (on Linux ``/etc/claude-code/managed-mcp.json``).

What Claude Code 2.1.197 does with it (read in its program, and run against test files laid
over ``/etc`` in a private mount namespace, since it reads the file only at that fixed path:
``tests/hosts/test_claude_managed.py``; docs/HOSTS_MEASURED.md):

- the file takes **exclusive control** when it is a regular file of at most 2 MiB
  (``MAX_MANAGED_BYTES``) holding JSON whose ``mcpServers`` is an object: then only its servers
  run, those the server policy (``allowedMcpServers`` / ``deniedMcpServers``) lets through;
  the user's, the project's (``.mcp.json``), the local ones and the plugins' are not started,
  and ``claude mcp add`` refuses ("enterprise MCP configuration is active and has exclusive
  control over MCP servers"). An empty ``mcpServers`` is a lockdown with no server at all;
- a file that is absent, too big, not JSON or without an object ``mcpServers`` is skipped
  (its error logged) and every other file counts as usual;
- an entry is read as any ``.mcp.json`` entry; an invalid one is skipped, the others run;
- its servers are switched as any other: a deny rule in any settings file leaves a tool out,
  ``disabledMcpServers`` in the project's entry of ``~/.claude.json`` (what ``/mcp`` writes)
  keeps one from starting.

Here its servers are entries of host ``claude``, read and never written (``SourceRef.admin``),
of scope ``user`` (they apply to every project); a file others may change has its stdio
servers wait for the user's trust, as any config file's.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.hosts.claude.switches import ClaudeFiles
from agentty_tui.config.hosts.mcpjson import SERVERS_KEY
from agentty_tui.config.raw import json_type, server_or_problem
from agentty_tui.config.sources import SourceFile
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError
from agentty_tui.specs import PluginConfig, SourceRef, ToolFilter

__all__ = [
    "MANAGED_DIALECT",
    "MAX_MANAGED_BYTES",
    "ManagedServers",
    "managed_ref",
    "read_managed_servers",
]

MAX_MANAGED_BYTES = 2 * 1024 * 1024
"""The largest file Claude Code reads (a bigger one is skipped, so it has no control)."""

MANAGED_DIALECT = "claude-managed"
"""The ``SourceFile.dialect`` of the managed file: read here, never written."""


@dataclass(frozen=True, slots=True)
class ManagedServers:
    """What Claude Code's managed MCP file says now."""

    path: Path
    """The file."""
    exclusive: bool = False
    """It takes exclusive control: only its servers run, none may be added."""
    part: tuple[SourceFile, PluginConfig] | None = None
    """Its servers (when ``exclusive``), as a read-only source of host ``claude``."""
    problem: str | None = None
    """Why a file that is there takes no control (Claude Code skips it), naming it."""

    @property
    def lockdown(self) -> str:
        """Why another entry of Claude Code's is not started, for a row."""
        return f"{self.path} has exclusive control: Claude Code runs only its servers"


def managed_ref(path: Path) -> SourceRef:
    """The source of the managed file's servers (scope ``user``: every project's)."""
    return SourceRef(path=str(path), scope="user", host="claude", admin="managed")


def _insecure(path: Path) -> str | None:
    """Why the file is not trusted to name commands (others may change it), as the store
    says it of any config file (``trust.file_trust_problem``); ``None`` when it is."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return file_trust_problem(str(path), stat.S_IMODE(info.st_mode), info.st_uid)


def _skipped(path: Path, why: str) -> ManagedServers:
    problem = f"{path}: {why}, so Claude Code skips it and runs its other files' servers"
    return ManagedServers(path=path, problem=problem)


def read_managed_servers(files: ClaudeFiles) -> ManagedServers:
    """The managed MCP file of ``files`` (``ClaudeFiles.managed_mcp``), read now; never raises
    for what it holds (a file Claude Code would skip says why in ``problem``)."""
    path = files.managed_mcp
    try:
        info = path.stat()
    except (OSError, ValueError):
        return ManagedServers(path=path)  # absent (or unreachable): Claude Code skips it too
    if not stat.S_ISREG(info.st_mode):
        return _skipped(path, "not a regular file")
    if info.st_size > MAX_MANAGED_BYTES:
        return _skipped(path, f"larger than {MAX_MANAGED_BYTES} bytes")
    try:
        read = read_file(path, str(path))
        text = "" if read is None else decode_text(read.data, str(path))
        if not text.strip():
            return _skipped(path, "empty")
        value = JsonFormat().load(text, str(path)).value
    except ConfigError as error:
        return _skipped(path, f"not read ({error})")
    if not isinstance(value, Mapping):
        return _skipped(path, f"the top level must be an object, not {json_type(value)}")
    servers = value.get(SERVERS_KEY)
    if not isinstance(servers, Mapping):
        return _skipped(path, f"{SERVERS_KEY} must be an object, not {json_type(servers)}")
    entries = []
    for name, entry in servers.items():
        server = server_or_problem(str(name), entry, str(path))
        # Claude Code ignores switches inside an entry (measured): only its own count.
        entries.append(server.model_copy(update={"disabled": False, "tools": ToolFilter()}))
    source = SourceFile(managed_ref(path), MANAGED_DIALECT)
    config = PluginConfig(servers=tuple(entries), insecure=_insecure(path))
    return ManagedServers(path=path, exclusive=True, part=(source, config))
