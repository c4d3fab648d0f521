"""Other hosts' spellings of a URL server's OAuth settings, read into ours and written back.

Ours (and Claude Code's, whose ``.mcp.json`` is our format) is an ``oauth`` object with
``clientId``, ``clientSecret``, ``scopes``, ``callbackPort`` and ``clientMetadataUrl``; Claude
Code writes ``scopes`` as one space-separated string. VS Code's ``mcp.json`` spells its
``oauth`` object as we do. The others differ:

- **Gemini CLI** (``settings.json``): ``oauth`` with ``enabled``, ``clientId``,
  ``clientSecret``, ``scopes`` (a list) and ``redirectUri``; a loopback ``redirectUri`` gives
  the callback port. ``enabled: false`` turns the settings off. ``authorizationUrl``,
  ``tokenUrl`` and ``audiences`` are not used: the endpoints are discovered from the server.
- **Codex** (``config.toml``): ``scopes`` (a list) on the server's table, a
  ``[mcp_servers.NAME.oauth]`` table with ``client_id`` / ``client_secret``, and the
  top-level ``mcp_oauth_callback_port``. ``oauth_resource`` is not used (the resource is the
  server's URL). ``bearer_token_env_var`` is a header, not OAuth (see ``codex``).

Each reader returns ``{"oauth": {...}}`` in our spelling (empty when there is nothing), to
merge into the entry the shared validation checks; a value of the wrong shape is a
``ConfigError`` naming the host's own field.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from agentty_tui.errors import ConfigError
from agentty_tui.specs import OAuthSettings

__all__ = [
    "codex_oauth",
    "codex_oauth_table",
    "gemini_oauth",
    "gemini_oauth_entry",
    "oauth_entry",
    "split_scopes",
]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_CALLBACK_PATH = "/callback"


def split_scopes(value: object) -> object:
    """Claude Code's ``"read write"`` as ``["read", "write"]``; anything else unchanged."""
    return value.split() if isinstance(value, str) else value


def _client_fields(settings: OAuthSettings) -> dict[str, Any]:
    """The client's id, secret and scopes, spelled alike by every JSON host: set fields only."""
    entry: dict[str, Any] = {}
    if settings.client_id is not None:
        entry["clientId"] = settings.client_id
    if settings.client_secret is not None:
        entry["clientSecret"] = settings.client_secret
    if settings.scopes is not None:
        entry["scopes"] = list(settings.scopes)
    return entry


def oauth_entry(settings: OAuthSettings) -> dict[str, Any]:
    """Our (and Claude Code's, VS Code's) ``oauth`` object for ``settings``: set fields only."""
    entry = _client_fields(settings)
    if settings.callback_port is not None:
        entry["callbackPort"] = settings.callback_port
    if settings.client_metadata_url is not None:
        entry["clientMetadataUrl"] = settings.client_metadata_url
    return entry


def _object(value: object, name: str, field: str, path: str | None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError("must be an object", path=path, server=name, field=field)
    return value


def _string(value: object, name: str, field: str, path: str | None) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError("must be a non-empty string", path=path, server=name, field=field)
    return value


def _callback_port(uri: str, name: str, field: str, path: str | None) -> int:
    """The port of a loopback redirect URI ``http://127.0.0.1:PORT/callback``."""
    parts = urlsplit(uri)
    try:
        port = parts.port
    except ValueError:
        port = None
    if (
        parts.scheme != "http"
        or parts.hostname not in _LOOPBACK
        or port is None
        or parts.path != _CALLBACK_PATH
    ):
        raise ConfigError(
            f"agentty-tui receives the redirect at http://127.0.0.1:PORT{_CALLBACK_PATH}; "
            "only such a redirect URI can be used",
            path=path,
            server=name,
            field=field,
        )
    return port


def gemini_oauth(entry: dict[str, Any], name: str, path: str | None) -> dict[str, Any]:
    """Gemini CLI's ``oauth`` object of ``entry``, as our ``oauth`` key."""
    if "oauth" not in entry:
        return {}
    oauth = _object(entry["oauth"], name, "oauth", path)
    if oauth.get("enabled", True) is False:
        return {}
    ours: dict[str, Any] = {}
    for theirs, key in (("clientId", "clientId"), ("clientSecret", "clientSecret")):
        if theirs in oauth:
            ours[key] = _string(oauth[theirs], name, f"oauth.{theirs}", path)
    if "scopes" in oauth:
        ours["scopes"] = oauth["scopes"]
    if "redirectUri" in oauth:
        uri = _string(oauth["redirectUri"], name, "oauth.redirectUri", path)
        ours["callbackPort"] = _callback_port(uri, name, "oauth.redirectUri", path)
    return {"oauth": ours}


def gemini_oauth_entry(settings: OAuthSettings) -> dict[str, Any]:
    """Gemini CLI's ``oauth`` object for ``settings`` (what it cannot say is left out)."""
    entry: dict[str, Any] = {"enabled": True, **_client_fields(settings)}
    if settings.callback_port is not None:
        entry["redirectUri"] = f"http://127.0.0.1:{settings.callback_port}{_CALLBACK_PATH}"
    return entry


def codex_oauth(
    entry: dict[str, Any], name: str, path: str | None, callback_port: object = None
) -> dict[str, Any]:
    """Codex's OAuth keys of a URL server's ``entry``, as our ``oauth`` key; ``callback_port``
    is the file's top-level ``mcp_oauth_callback_port`` (it applies to every URL server)."""
    if "url" not in entry:
        return {}
    ours: dict[str, Any] = {}
    if "scopes" in entry:
        ours["scopes"] = entry["scopes"]
    if "oauth" in entry:
        table = _object(entry["oauth"], name, "oauth", path)
        for theirs, key in (("client_id", "clientId"), ("client_secret", "clientSecret")):
            if theirs in table:
                ours[key] = _string(table[theirs], name, f"oauth.{theirs}", path)
    if callback_port is not None:
        ours["callbackPort"] = callback_port
    return {"oauth": ours} if ours else {}


def codex_oauth_table(settings: OAuthSettings) -> tuple[list[str] | None, dict[str, str]]:
    """Codex's ``scopes`` list and ``oauth`` table for ``settings`` (its callback port is one
    setting for the whole file, so it is not written per server)."""
    table: dict[str, str] = {}
    if settings.client_id is not None:
        table["client_id"] = settings.client_id
    if settings.client_secret is not None:
        table["client_secret"] = settings.client_secret
    scopes = list(settings.scopes) if settings.scopes is not None else None
    return scopes, table
