"""Where a server's OAuth record is kept: the OS keyring, else a private file.

A ``Vault`` keeps one text per key (a server's URL). The keyring (the optional ``keyring``
package) is used only when it is installed and offers a real backend; otherwise each text is a
file ``auth/<hash of the URL>.json`` under ``$XDG_STATE_HOME/agentty`` (``~/.local/state/agentty``),
mode 0600 in a folder of mode 0700, replaced atomically (temporary file, fsync, rename) so a
crash never leaves half a record.

What the text holds (``storage.AuthRecord``, in the SDK's types) is not read here: forgetting a
server's record (``forget_record``, what ``logout`` does) needs neither the SDK nor pydantic.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from typing import Any, Protocol

from agentty_tui.atomic_file import replace_file

__all__ = [
    "KEYRING_SERVICE",
    "FileVault",
    "KeyringVault",
    "Vault",
    "default_auth_dir",
    "default_vault",
    "forget_record",
]

KEYRING_SERVICE = "agentty-tui"
"""The service name records are kept under in the OS keyring."""


def default_auth_dir() -> Path:
    """``$XDG_STATE_HOME/agentty/auth``, else ``~/.local/state/agentty/auth``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "auth"


class Vault(Protocol):
    """Somewhere a record's JSON text is kept under a key."""

    def read(self, key: str) -> str | None:
        """The text kept under ``key``, if any."""

    def write(self, key: str, text: str) -> None:
        """Keep ``text`` under ``key``, replacing what was there."""

    def delete(self, key: str) -> bool:
        """Forget ``key``; whether there was anything to forget."""

    def describe(self, key: str) -> str:
        """Where ``key`` is kept, in words (a path or "the OS keyring")."""


class FileVault:
    """Records as private files in one folder (mode 0700; each file 0600)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else default_auth_dir()

    def path(self, key: str) -> Path:
        """The file that holds ``key``: named by a hash, so the URL is not in the name."""
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return self.directory / f"{digest}.json"

    def read(self, key: str) -> str | None:
        """The file's text, or ``None`` when there is none."""
        try:
            return self.path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def write(self, key: str, text: str) -> None:
        """Replace the file atomically; it is never readable by anyone else, not even briefly."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)  # an existing folder may have been made looser
        target = self.path(key)
        # Mode 0600 from the temporary file's creation, before anything is written to it.
        replace_file(target, text.encode("utf-8"), prefix=".tmp-", durable=True)
        folder = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(folder)  # the rename itself survives a crash
        finally:
            os.close(folder)

    def delete(self, key: str) -> bool:
        """Remove the file."""
        try:
            self.path(key).unlink()
        except FileNotFoundError:
            return False
        return True

    def describe(self, key: str) -> str:
        """The file's path."""
        return str(self.path(key))


class KeyringVault:
    """Records in the OS keyring, through the optional ``keyring`` package."""

    def __init__(self, module: Any) -> None:
        self._keyring = module

    def read(self, key: str) -> str | None:
        """The keyring's entry, if any."""
        value = self._keyring.get_password(KEYRING_SERVICE, key)
        return value if isinstance(value, str) else None

    def write(self, key: str, text: str) -> None:
        """Set the keyring's entry."""
        self._keyring.set_password(KEYRING_SERVICE, key, text)

    def delete(self, key: str) -> bool:
        """Delete the keyring's entry."""
        errors = importlib.import_module("keyring.errors")
        try:
            self._keyring.delete_password(KEYRING_SERVICE, key)
        except errors.PasswordDeleteError:
            return False
        return True

    def describe(self, key: str) -> str:
        """Words for the OS keyring."""
        return f"the OS keyring ({KEYRING_SERVICE})"


def _usable_keyring() -> Any | None:
    """The ``keyring`` module when it is installed and has a real backend, else ``None``.

    Without a desktop session keyring falls back to a "fail" or "null" backend (priority 0 or
    below) that cannot keep anything; that counts as no keyring.
    """
    if os.environ.get("AGENTTY_KEYRING", "") == "0":
        return None
    try:
        module = importlib.import_module("keyring")
        backend = module.get_keyring()
    except Exception:  # not installed, or its backend discovery broke: use the file
        return None
    kind = type(backend).__module__ + "." + type(backend).__name__
    if "fail" in kind.lower() or "null" in kind.lower():
        return None
    try:
        priority = float(getattr(backend, "priority", 0))
    except (TypeError, ValueError):
        return None
    return module if priority > 0 else None


def default_vault() -> Vault:
    """The OS keyring where a usable one exists, else private files."""
    module = _usable_keyring()
    return KeyringVault(module) if module is not None else FileVault()


def forget_record(server_url: str, vault: Vault | None = None) -> bool:
    """Forget the tokens and the client registration kept for ``server_url``; whether there
    was anything to forget."""
    return (vault if vault is not None else default_vault()).delete(server_url)
