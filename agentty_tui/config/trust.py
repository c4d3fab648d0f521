"""The user's trust in what a config file may run: the file's own, its project's, this run's.

Trust has three sources, asked in this order by ``TrustGate``:

- A file's own: a config's ``command`` entries run with the user's rights, so a file someone
  else can change is a way for them to run code as the user. As ssh does with its own files, a
  file that other users can write, or that belongs to another user (root excepted), is not
  trusted (``untrusted_because``): it loads, but its stdio servers are not started until the
  user says so (or fixes the file).
- A project's, remembered across runs (``TrustBook``): a repository's project files can name
  any command, and a URL server of theirs receives headers and tokens; so none of them starts
  until the user trusts it once. The trust is kept in a file of our own state folder
  (``$XDG_STATE_HOME/agentty/trust.json``, by default ``~/.local/state/agentty/trust.json``),
  keyed by the project root and, for each server, by a hash of its entry: its file, its name
  and its connection. A changed entry (another command, another URL, another file) has another
  hash, and asks again. That file is written atomically under our lock; one that does not parse
  trusts nothing (and is replaced by the next trust, since it holds nothing we could keep). It
  is read as a config file is trusted (``untrusted_because``): one that other users can write,
  or that another user owns, trusts nothing and says so; so does a symbolic link at its path,
  which is never followed, neither to read nor to write.
- This run's (``TrustGate``): a server waits when ``needs_trust`` says so (a project file's
  entry not trusted on disk yet, or a stdio entry of a file others can write) and the user has
  not trusted it in this process: the whole config (``--trust``, ``T`` on one file), or that
  entry as it is now (by its ``entry_hash``, so that a changed entry asks again). The command
  line asks the same gate (``TrustGate(everything=--trust)``) before it connects a server of its
  own (``call``, ``login``), so no command reaches a server the bridge would hold back.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentty_tui.atomic_file import replace_file
from agentty_tui.config.files import FileVersion, read_file
from agentty_tui.config.locking import locked
from agentty_tui.errors import ConfigError, OperationError
from agentty_tui.specs import PluginConfig, ServerConfig, ServerSpec, SourceRef, StdioSpec

__all__ = [
    "TRUST_HINT",
    "HashedEntry",
    "ProjectTrust",
    "TrustBook",
    "TrustGate",
    "default_trust_file",
    "entry_hash",
    "file_trust_problem",
    "needs_trust",
    "trust_key",
    "untrusted_because",
]


TRUST_HINT = "T in the picker / --trust"
"""How the user trusts a file for one run, as the messages say it."""


def untrusted_because(path: str, mode: int, uid: int) -> tuple[str, str] | None:
    """The one rule of a file that other users could have written: ``(why, fix)`` when the
    file at ``path``, of permission bits ``mode`` and owner ``uid``, is writable by other users
    or belongs to another user (root excepted), e.g. ``("is writable by other users (mode
    0666)", "chmod o-w PATH")``; ``None`` when only the user could have written it. Config
    files, env files and the trust store (``TrustBook``) all ask this one rule."""
    if mode & stat.S_IWOTH:
        return f"is writable by other users (mode {mode:04o})", f"chmod o-w {path}"
    if uid not in (0, os.geteuid()):
        return f"belongs to another user (uid {uid})", "chown it to yourself"
    return None


def file_trust_problem(path: str, mode: int, uid: int) -> str | None:
    """Why the file at ``path`` (of permission bits ``mode`` and owner ``uid``) is not trusted
    to name commands, as one line naming the file and the fix; ``None`` when it is."""
    found = untrusted_because(path, mode, uid)
    if found is None:
        return None
    why, fix = found
    return f"{path} {why}: its commands are not run until you trust it ({fix}, or {TRUST_HINT})"


def needs_trust(config: PluginConfig, server: ServerConfig) -> bool:
    """Whether ``server`` of ``config`` may only start once the user trusts it: an entry the
    workspace marked ``untrusted`` (a project file's, not trusted yet), or a stdio server (it
    runs a command) of an untrusted file. A URL server of such a file runs nothing here."""
    if server.untrusted is not None:
        return True
    return config.insecure is not None and isinstance(server.spec, StdioSpec)


class HashedEntry(Protocol):
    """What ``entry_hash`` reads of an entry: a ``ServerConfig``, or the ``ServerState`` the
    picker showed (so that the dialog trusts the entry it showed, not the one loaded later)."""

    @property
    def name(self) -> str:
        """The entry's name."""
        ...

    @property
    def spec(self) -> ServerSpec | None:
        """How it is reached."""
        ...

    @property
    def source(self) -> SourceRef | None:
        """The file that holds it."""
        ...


_MAX_BYTES = 4 * 1024 * 1024


def default_trust_file(home: Path, env: Mapping[str, str]) -> Path:
    """``$XDG_STATE_HOME/agentty/trust.json`` (``~/.local/state`` without the variable)."""
    state = Path(env["XDG_STATE_HOME"]) if env.get("XDG_STATE_HOME") else home / ".local" / "state"
    return state / "agentty" / "trust.json"


def trust_key(server: HashedEntry) -> str:
    """The key an entry's trust is kept under in its project: its name for Claude Code's
    ``.mcp.json``, ``name@host`` for another host's project file (each host has one), so that
    two hosts' entries of one name are trusted each on its own."""
    host = server.source.host if server.source is not None else "claude"
    return server.name if host == "claude" else f"{server.name}@{host}"


def entry_hash(server: HashedEntry) -> str:
    """A hash of what trusting ``server`` means: its file, its name and how it is reached."""
    source = server.source.path if server.source is not None else ""
    spec = server.spec.model_dump(mode="json") if server.spec is not None else None
    text = json.dumps([source, server.name, spec], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ProjectTrust:
    """What the trust file says of one project, as one read of it."""

    entries: dict[str, str]
    """The trusted entries: their ``trust_key`` -> the hash of the entry as the user trusted
    it (``entry_hash``)."""
    problem: str | None = None
    """Why the file was refused (a link, or a file others could have written: then it trusts
    nothing), as a warning naming it; ``None`` when it was read, or is absent."""

    def trusts(self, server: HashedEntry) -> bool:
        """Whether the user trusts ``server`` (an entry of a project file, under the name its
        file gives it) as it is now.

        By the hash alone, which names the file, the entry and its connection: an entry keyed
        by its bare name (as earlier versions wrote every one) is still known."""
        return entry_hash(server) in self.entries.values()


class TrustBook:
    """The trust file: which entries of which project the user trusts."""

    def __init__(self, path: Path) -> None:
        """The book kept at ``path`` (which need not exist)."""
        self.path = path
        """The trust file."""

    def _refused(self, why: str) -> str:
        return f"{why}: no project server is trusted from it (the next trust replaces it)"

    def _read(self) -> tuple[dict[str, dict[str, str]], str | None]:
        """Every project's trusted entries, and why the file was refused (then: none)."""
        try:
            # Never through a link: the file decides what runs, as a config file does, and a
            # link planted at its path would make another file (anyone's) decide.
            read = read_file(self.path, limit=_MAX_BYTES, follow_symlinks=False)
        except ConfigError as error:
            return {}, self._refused(str(error))
        if read is None:
            return {}, None
        # The config files' rule (``trust.untrusted_because``): a file another user could
        # have written would let them start any project's commands as the user.
        found = untrusted_because(str(self.path), read.mode, read.uid)
        if found is not None:
            why, fix = found
            return {}, self._refused(f"{self.path} {why} ({fix})")
        try:
            value = json.loads(read.data)
        except (ValueError, UnicodeDecodeError):
            return {}, None
        projects = value.get("projects") if isinstance(value, dict) else None
        if not isinstance(projects, dict):
            return {}, None
        return {
            str(root): {str(k): str(v) for k, v in names.items() if isinstance(v, str)}
            for root, names in projects.items()
            if isinstance(names, dict)
        }, None

    def version(self) -> FileVersion | None:
        """A one-``stat`` fingerprint of the trust file (``None`` when it is not there, or
        cannot be looked at): a change of it is a change of what may start."""
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return FileVersion.of(info)

    def trusted(self, root: Path, server: ServerConfig) -> bool:
        """Whether the user trusts ``server`` (an entry of a project file) of the project at
        ``root``, as it is now."""
        return self.project(root).trusts(server)

    def project(self, root: Path) -> ProjectTrust:
        """The trusted entries of the project at ``root``, as one read of the file (with why
        it was refused, if it was)."""
        projects, problem = self._read()
        return ProjectTrust(projects.get(str(root), {}), problem)

    def trust(self, root: Path, servers: Iterable[ServerConfig]) -> None:
        """Remember that the user trusts ``servers`` of the project at ``root``, as they are."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path, 10.0, str(self.path)):
            # A refused file holds nothing we keep: it is replaced by a file of ours (the
            # rename replaces a link itself, never the file it points to).
            projects = self._read()[0]
            names = projects.setdefault(str(root), {})
            for server in servers:
                names[trust_key(server)] = entry_hash(server)
            text = json.dumps({"version": 1, "projects": projects}, indent=2, sort_keys=True)
            replace_file(self.path, (text + "\n").encode(), prefix=".trust.", durable=True)


class TrustGate:
    """The trust given in this process."""

    def __init__(self, *, everything: bool = False) -> None:
        """``everything``: trust every server (``--trust``)."""
        self.everything = everything
        """Whether every server is trusted for this run."""
        self._entries: set[str] = set()

    def gated(self, config: PluginConfig, server: ServerConfig) -> bool:
        """Whether ``server`` of ``config`` waits for trust."""
        if self.everything or not needs_trust(config, server):
            return False
        # Hashed only for an entry that waits: this runs for every server at every publish.
        return not self._entries or entry_hash(server) not in self._entries

    def refuse_untrusted(self, config: PluginConfig, server: ServerConfig, what: str) -> None:
        """Raise ``OperationError`` (``server 'x' <what>: <why>``) when ``server`` of ``config``
        waits for trust. Every way of reaching a server asks this before the first byte goes
        out: a start, a restart, a call, a login (a project's URL server would receive the
        file's headers, expanded, and a login sends them to its discovery requests)."""
        if not self.gated(config, server):
            return
        if server.untrusted is None:
            why = "the config file is not trusted (--trust runs it)"
        else:
            why = f"it waits for trust (agentty-tui trust {server.name}, or --trust once)"
        raise OperationError(f"server {server.name!r} {what}: {why}")

    def trust_entries(self, config: PluginConfig, names: Collection[str] | None) -> None:
        """Trust the waiting entries ``names`` of ``config`` (or all), as they are, for this run."""
        self._entries.update(
            entry_hash(server)
            for server in config.servers
            if server.untrusted is not None and (names is None or server.name in names)
        )
