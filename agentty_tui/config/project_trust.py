"""The user's trust in a project's servers, remembered across runs.

A repository's project files can name any command, and a URL server of theirs receives headers
and tokens; so none of them starts until the user trusts it once. The trust is kept in a file
of our own state folder (``$XDG_STATE_HOME/agentty/trust.json``, by default
``~/.local/state/agentty/trust.json``), keyed by the project root and, for each server, by a
hash of its entry: its file, its name and its connection. A changed entry (another command,
another URL, another file) has another hash, and asks again.

The file is written atomically under our lock; one that does not parse trusts nothing (and is
replaced by the next trust, since it holds nothing we could keep).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from agentty_tui.config.locking import locked
from agentty_tui.config.store import FileVersion
from agentty_tui.model import ServerConfig

__all__ = ["TrustBook", "default_trust_file", "entry_hash"]

_MAX_BYTES = 4 * 1024 * 1024


def default_trust_file(home: Path, env: Mapping[str, str]) -> Path:
    """``$XDG_STATE_HOME/agentty/trust.json`` (``~/.local/state`` without the variable)."""
    state = Path(env["XDG_STATE_HOME"]) if env.get("XDG_STATE_HOME") else home / ".local" / "state"
    return state / "agentty" / "trust.json"


def entry_hash(server: ServerConfig) -> str:
    """A hash of what trusting ``server`` means: its file, its name and how it is reached."""
    source = server.source.path if server.source is not None else ""
    spec = server.spec.model_dump(mode="json") if server.spec is not None else None
    text = json.dumps([source, server.name, spec], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TrustBook:
    """The trust file: which entries of which project the user trusts."""

    def __init__(self, path: Path) -> None:
        """The book kept at ``path`` (which need not exist)."""
        self.path = path
        """The trust file."""

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            with open(self.path, "rb") as file:
                data = file.read(_MAX_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError:
            return {}
        if len(data) > _MAX_BYTES:
            return {}
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return {}
        projects = value.get("projects") if isinstance(value, dict) else None
        if not isinstance(projects, dict):
            return {}
        return {
            str(root): {str(k): str(v) for k, v in names.items() if isinstance(v, str)}
            for root, names in projects.items()
            if isinstance(names, dict)
        }

    def version(self) -> FileVersion | None:
        """A one-``stat`` fingerprint of the trust file (``None`` when it is not there, or
        cannot be looked at): a change of it is a change of what may start."""
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return FileVersion(info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev)

    def trusted(self, root: Path, server: ServerConfig) -> bool:
        """Whether the user trusts ``server`` (an entry of a project file) of the project at
        ``root``, as it is now."""
        return self.project(root).get(server.name) == entry_hash(server)

    def project(self, root: Path) -> dict[str, str]:
        """The trusted entries of the project at ``root``, as one read of the file: name ->
        the hash of the entry as the user trusted it (``entry_hash``)."""
        return self._read().get(str(root), {})

    def trust(self, root: Path, servers: Iterable[ServerConfig]) -> None:
        """Remember that the user trusts ``servers`` of the project at ``root``, as they are."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path, 10.0, str(self.path)):
            projects = self._read()
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
