"""Where OAuth tokens and client registrations are kept: the OS keyring, else a private file.

One record per server URL holds the tokens, when they expire, the registered client and the
issuer it belongs to. The record is never written to a config file, printed or logged.

It is kept as JSON text in a ``vault.Vault``: the OS keyring where there is a usable one, else
a private file (see ``vault``, whose names are also offered here).
"""

from __future__ import annotations

import time
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import BaseModel, ConfigDict, ValidationError

from agentty_tui.bridge.auth.vault import (
    KEYRING_SERVICE,
    FileVault,
    KeyringVault,
    Vault,
    default_auth_dir,
    default_vault,
)

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
