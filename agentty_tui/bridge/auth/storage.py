"""Where OAuth tokens and client registrations are kept: the OS keyring, else a private file.

One record per server URL holds the tokens, when they expire, the registered client and the
issuer it belongs to. The record is never written to a config file, printed or logged.

The keyring (the optional ``keyring`` package) is used only when it is installed and offers a
real backend; otherwise the record is a JSON file ``auth/<hash of the URL>.json`` under
``$XDG_STATE_HOME/agentty`` (``~/.local/state/agentty``), mode 0600 in a folder of mode 0700,
replaced atomically (temporary file, fsync, rename) so a crash never leaves half a record.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "KEYRING_SERVICE",
    "AuthRecord",
    "FileVault",
    "KeyringVault",
    "ServerTokenStorage",
    "Vault",
    "default_auth_dir",
    "default_vault",
]

KEYRING_SERVICE = "agentty-tui"
"""The service name records are kept under in the OS keyring."""


def default_auth_dir() -> Path:
    """``$XDG_STATE_HOME/agentty/auth``, else ``~/.local/state/agentty/auth``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agentty" / "auth"


class AuthRecord(BaseModel):
    """What is kept for one server URL."""

    model_config = ConfigDict(extra="ignore")

    server_url: str
    """The MCP server's URL the record belongs to."""
    issuer: str | None = None
    """The authorization server that registered the client and issued the tokens."""
    tokens: OAuthToken | None = None
    """The latest tokens (access and, where given, refresh)."""
    expires_at: float | None = None
    """When the access token expires (Unix time), from ``expires_in`` at the time it came."""
    client_info: OAuthClientInformationFull | None = None
    """The registered client (dynamic registration or a Client ID Metadata Document)."""
    wanted_scope: str | None = None
    """Scopes a step-up asked for that no token holds yet: the next login asks for them."""


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
        # mkstemp creates the file with mode 0600 before anything is written to it.
        fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
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


class ServerTokenStorage:
    """The mcp SDK's ``TokenStorage`` for one server URL, kept in a ``Vault``."""

    def __init__(self, server_url: str, vault: Vault | None = None) -> None:
        self.server_url = server_url
        self.vault = vault if vault is not None else default_vault()

    def load(self) -> AuthRecord:
        """The record (empty when there is none, or when it cannot be read)."""
        text = self.vault.read(self.server_url)
        if text:
            try:
                record = AuthRecord.model_validate_json(text)
            except ValidationError:
                record = None  # a damaged record is a login to redo, not a crash
            if record is not None and record.server_url == self.server_url:
                return record
        return AuthRecord(server_url=self.server_url)

    def save(self, record: AuthRecord) -> None:
        """Replace the record."""
        self.vault.write(self.server_url, record.model_dump_json(exclude_none=True))

    def forget(self) -> bool:
        """Remove tokens and client registration; whether there was anything."""
        return self.vault.delete(self.server_url)

    def where(self) -> str:
        """Where the record is kept, in words."""
        return self.vault.describe(self.server_url)

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens."""
        return self.load().tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens, with the time they expire."""
        record = self.load()
        expires_at = None if tokens.expires_in is None else time.time() + int(tokens.expires_in)
        update: dict[str, Any] = {"tokens": tokens, "expires_at": expires_at}
        granted = set((tokens.scope or "").split())
        if record.wanted_scope and set(record.wanted_scope.split()) <= granted:
            update["wanted_scope"] = None  # the step-up is done
        self.save(record.model_copy(update=update))

    async def want_scope(self, scope: str | None) -> None:
        """Remember the scopes a step-up asked for, for the next login."""
        if scope:
            self.save(self.load().model_copy(update={"wanted_scope": scope}))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration."""
        return self.load().client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store a client registration (and the issuer it is bound to)."""
        record = self.load()
        update: dict[str, Any] = {"client_info": client_info, "issuer": client_info.issuer}
        if record.client_info is not None and record.client_info.client_id != client_info.client_id:
            # Tokens of another client (or another authorization server) are of no use now.
            update.update(tokens=None, expires_at=None)
        self.save(record.model_copy(update=update))

    async def forget_client(self) -> None:
        """Drop the client registration (and its tokens), e.g. when its redirect URI is gone."""
        record = self.load()
        self.save(
            record.model_copy(update={"client_info": None, "tokens": None, "expires_at": None})
        )
