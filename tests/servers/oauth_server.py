"""A protected MCP server with its own OAuth authorization server, over Streamable HTTP.

Built on the mcp SDK's server-side auth (``mcp.server.auth``): the same process is the
authorization server (metadata, dynamic client registration, authorize, token, revoke) and
the resource server (protected resource metadata, ``/mcp`` requiring a Bearer token). The
authorization endpoint approves at once and redirects to the client's ``redirect_uri`` with the
code, like the conformance suite's servers: a stand-in browser that follows redirects plays
the user.

Tools: ``whoami()`` -> the client id the token was issued to; ``add(a, b)``;
``revoke_access()`` forgets every access token (refresh tokens stay good).

Run: ``python tests/servers/oauth_server.py --port N [--token-lifetime S]
[--client-id ID --client-secret SECRET --redirect-uri URI] [--events FILE]
[--pkce-methods plain]``.
``--events`` appends one line per grant (``code``, ``refresh``, ``register``), and
``expired`` when a client presents an expired access token, so a test can tell a refresh from
a new login and a timely refresh from a late one. Only protocol goes to stdout; logs go to
stderr at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from mcp.server.auth import routes
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "mcp:tools"
"""The one scope this server knows and requires."""


class ApprovingProvider:
    """An in-memory authorization server that approves every authorization request."""

    def __init__(self, token_lifetime: int, events: Path | None) -> None:
        self.token_lifetime = token_lifetime
        self.events = events
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def _event(self, what: str) -> None:
        if self.events is not None:
            with self.events.open("a") as handle:
                handle.write(what + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self._event("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = AuthorizationCode(
            code=secrets.token_urlsafe(24),
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "at-" + secrets.token_urlsafe(24)
        refresh = "rt-" + secrets.token_urlsafe(24)
        expires = int(time.time()) + self.token_lifetime
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.token_lifetime,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self._event("code")
        return self._issue(
            client.client_id or "", authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(
        self,
        client: OAuthClientInformationFull,
        refresh_token: RefreshToken,
        scopes: list[str],
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)  # rotation: a refresh token works once
        self._event("refresh")
        return self._issue(
            client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None:
            return None
        if found.expires_at is not None and found.expires_at < time.time():
            self._event("expired")  # a client sent a token it should have refreshed first
            return None
        return found

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "identity assertions are not supported here")

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def build_server(port: int, provider: ApprovingProvider) -> MCPServer:
    """The MCP server, protected by ``provider``, at ``http://127.0.0.1:PORT/mcp``."""
    base = f"http://127.0.0.1:{port}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auth = AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
            validate_token_resource=False,
        )
    server: MCPServer = MCPServer(
        "oauth-protected",
        version="1.0.0",
        log_level="WARNING",
        auth=auth,
        auth_server_provider=provider,
    )

    @server.tool(description="The client id the access token was issued to.")
    def whoami() -> str:
        token = get_access_token()
        return token.client_id if token is not None else "nobody"

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Forget every access token issued (refresh tokens stay good).")
    def revoke_access() -> str:
        provider.access.clear()
        return "revoked"

    return server


def _advertise_pkce(methods: list[str]) -> None:
    """Make the metadata list other PKCE methods (a server a client must refuse)."""
    original = routes.build_metadata

    def build(*args: Any, **kwargs: Any) -> Any:
        metadata = original(*args, **kwargs)
        metadata.code_challenge_methods_supported = methods
        return metadata

    routes.build_metadata = build


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-lifetime", type=int, default=3600, help="seconds")
    parser.add_argument("--events", type=Path, help="append one line per grant to this file")
    parser.add_argument("--client-id", help="a pre-registered client")
    parser.add_argument("--client-secret", help="its secret")
    parser.add_argument("--redirect-uri", help="its registered redirect URI")
    parser.add_argument(
        "--pkce-methods", help="comma-separated code_challenge_methods_supported (default S256)"
    )
    args = parser.parse_args(argv)
    if args.pkce_methods is not None:
        _advertise_pkce(args.pkce_methods.split(","))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    provider = ApprovingProvider(args.token_lifetime, args.events)
    if args.client_id:
        provider.clients[args.client_id] = OAuthClientInformationFull(
            client_id=args.client_id,
            client_secret=args.client_secret,
            redirect_uris=[args.redirect_uri],
            token_endpoint_auth_method="client_secret_basic" if args.client_secret else "none",
            grant_types=["authorization_code", "refresh_token"],
            scope=SCOPE,
        )
    build_server(args.port, provider).run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
