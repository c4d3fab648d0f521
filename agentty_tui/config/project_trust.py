"""The user's trust in a project's servers, remembered across runs.

A repository's project files can name any command, and a URL server of theirs receives headers
and tokens; so none of them starts until the user trusts it once. The trust is kept in a file
of our own state folder (``$XDG_STATE_HOME/agentty/trust.json``, by default
``~/.local/state/agentty/trust.json``), keyed by the project root and, for each server, by a
hash of its entry: its file, its name and its connection. A changed entry (another command,
another URL, another file) has another hash, and asks again.

The file is written atomically under our lock; one that does not parse trusts nothing (and is
replaced by the next trust, since it holds nothing we could keep). It is read as a config file
is trusted (``trust.untrusted_because``): one that other users can write, or that another user
owns, trusts nothing and says so; so does a symbolic link at its path, which is never followed,
neither to read nor to write.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentty_tui.config.files import read_file
from agentty_tui.config.locking import locked
from agentty_tui.config.store import FileVersion
from agentty_tui.config.trust import untrusted_because
from agentty_tui.errors import ConfigError
from agentty_tui.model import ServerConfig, ServerSpec, SourceRef

__all__ = ["HashedEntry", "ProjectTrust", "TrustBook", "default_trust_file", "entry_hash"]


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
    """The trusted entries: name -> the hash of the entry as the user trusted it
    (``entry_hash``)."""
    problem: str | None = None
    """Why the file was refused (a link, or a file others could have written: then it trusts
    nothing), as a warning naming it; ``None`` when it was read, or is absent."""


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
        return self.project(root).entries.get(server.name) == entry_hash(server)

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
                names[server.name] = entry_hash(server)
            text = json.dumps({"version": 1, "projects": projects}, indent=2, sort_keys=True)
            handle, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".trust.", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(text + "\n")
                    file.flush()
                    os.fsync(file.fileno())
                os.replace(temp, self.path)
            finally:
                Path(temp).unlink(missing_ok=True)
