"""A protected MCP server with its own OAuth authorization server, over Streamable HTTP.

Built on the mcp SDK's server-side auth (``mcp.server.auth``): the same process is the
authorization server (metadata, dynamic client registration, authorize, token, revoke) and
the resource server (protected resource metadata, ``/mcp`` requiring a Bearer token). The
authorization endpoint approves at once and redirects to the client's ``redirect_uri`` with the
code, like the conformance suite's servers: a stand-in browser that follows redirects plays
the user.

Tools: ``whoami()`` -> the client id the token was issued to; ``add(a, b)``;
``revoke_access()`` forgets every access token (refresh tokens stay good); ``admin_report()``
needs the larger scope ``mcp:admin``: a call with a token without it is answered ``403`` with
``WWW-Authenticate: Bearer error="insufficient_scope"`` naming both scopes (a step-up).
``--admin-scope-never`` makes that ``403`` come whatever the token holds (a server that keeps
asking); ``--withhold-admin`` makes the authorization server leave ``mcp:admin`` out of every
grant (a step-up that never succeeds). ``--invalid-metadata`` serves authorization server
metadata that does not validate (its ``token_endpoint`` is not a URL; S256 is listed).
``--cimd-ca FILE`` advertises
``client_id_metadata_document_supported`` and accepts an HTTPS URL as a client id: the
authorization server fetches that Client ID Metadata Document (trusting the certificates in
FILE), checks that it names itself, and takes its redirect URIs.

Run: ``python tests/servers/oauth_server.py --port N [--token-lifetime S]
[--client-id ID --client-secret SECRET --redirect-uri URI] [--events FILE]
[--pkce-methods plain] [--invalid-metadata] [--admin-scope-never] [--withhold-admin]
[--cimd-ca FILE] [--requests FILE]``. ``--requests`` appends one line per HTTP request that arrives
(``METHOD PATH`` and the names of its ``x-`` headers), before it is served.
``--events`` appends one line per grant (``code``, ``refresh``, ``register``), ``step-up`` for
each ``403 insufficient_scope`` answered, ``cimd`` for each metadata document fetched, and
``expired`` when a client presents an expired access token, so a test can tell a refresh from
a new login and a timely refresh from a late one. Only protocol goes to stdout; logs go to
stderr at WARNING.
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import ssl
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
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
"""The scope every request needs."""

ADMIN_SCOPE = "mcp:admin"
"""The larger scope the ``admin_report`` tool needs (granted only when asked for)."""

ADMIN_TOOL = "admin_report"


class ApprovingProvider:
    """An in-memory authorization server that approves every authorization request."""

    def __init__(
        self,
        token_lifetime: int,
        events: Path | None,
        withhold_admin: bool = False,
        cimd_ca: Path | None = None,
    ) -> None:
        self.token_lifetime = token_lifetime
        self.events = events
        self.withhold_admin = withhold_admin
        self.cimd_ca = cimd_ca
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def _event(self, what: str) -> None:
        if self.events is not None:
            with self.events.open("a") as handle:
                handle.write(what + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id.startswith("https://") and self.cimd_ca is not None:
            return await self._fetch_client(client_id)
        return self.clients.get(client_id)

    async def _fetch_client(self, url: str) -> OAuthClientInformationFull | None:
        """A client described by its metadata document at ``url`` (which is its id)."""
        trust = ssl.create_default_context(cafile=str(self.cimd_ca))
        async with httpx2.AsyncClient(verify=trust, timeout=10) as http:
            response = await http.get(url)
        self._event("cimd")
        if response.status_code != 200:
            return None
        document = response.json()
        if not isinstance(document, dict) or document.get("client_id") != url:
            return None  # a document must name the URL it is served from
        return OAuthClientInformationFull.model_validate(
            {**document, "scope": f"{SCOPE} {ADMIN_SCOPE}", "token_endpoint_auth_method": "none"}
        )

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        # A permissive server: every client may later ask for every scope (a step-up).
        client_info.scope = f"{SCOPE} {ADMIN_SCOPE}"
        self.clients[client_info.client_id] = client_info
        self._event("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        scopes = params.scopes or [SCOPE]
        if self.withhold_admin:
            scopes = [scope for scope in scopes if scope != ADMIN_SCOPE]
        code = AuthorizationCode(
            code=secrets.token_urlsafe(24),
            scopes=scopes,
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
                enabled=True, valid_scopes=[SCOPE, ADMIN_SCOPE], default_scopes=[SCOPE]
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

    @server.tool(name=ADMIN_TOOL, description=f"Needs the {ADMIN_SCOPE} scope.")
    def admin_report() -> str:
        token = get_access_token()
        return "scopes: " + " ".join(sorted(token.scopes if token is not None else []))

    return server


class ScopeGate:
    """ASGI middleware: a call of ``admin_report`` without ``mcp:admin`` is answered 403.

    The SDK's resource server checks one set of scopes for the whole endpoint; a scope that
    only one tool needs is checked here, before the request reaches it.
    """

    def __init__(self, app: Any, provider: ApprovingProvider, port: int, never: bool) -> None:
        self.app = app
        self.provider = provider
        self.metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        self.never = never

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if self._refused(scope, body):
            self.provider._event("step-up")
            challenge = (
                f'Bearer error="insufficient_scope", scope="{SCOPE} {ADMIN_SCOPE}", '
                f'resource_metadata="{self.metadata}"'
            )
            await send(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [(b"www-authenticate", challenge.encode())],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.app(scope, replay, send)

    def _refused(self, scope: dict[str, Any], body: bytes) -> bool:
        try:
            message = json.loads(body)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return False
        params = message.get("params")
        if not isinstance(params, dict) or params.get("name") != ADMIN_TOOL:
            return False
        if self.never:
            return True
        headers = dict(scope.get("headers") or [])
        token = headers.get(b"authorization", b"").decode().removeprefix("Bearer ").strip()
        found = self.provider.access.get(token)
        # An unknown token is the resource server's to refuse (401), not a step-up.
        return found is not None and ADMIN_SCOPE not in found.scopes


class InvalidMetadata:
    """Serves authorization server metadata that does not validate: a client must say so."""

    PATH = "/.well-known/oauth-authorization-server"

    def __init__(self, app: Any, port: int) -> None:
        self.app = app
        base = f"http://127.0.0.1:{port}"
        self.document = json.dumps(
            {
                "issuer": f"{base}/",
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": "not a URL",
                "registration_endpoint": f"{base}/register",
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            }
        ).encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.PATH):
            await self.app(scope, receive, send)
            return
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.document})


class RequestLog:
    """ASGI middleware: one line per HTTP request that arrives (``METHOD PATH``, and the names
    of its ``x-`` headers), appended to a file before the request is served, so a test can
    tell whether anything at all reached the server."""

    def __init__(self, app: Any, path: Path) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            names = sorted(
                name.decode("latin-1")
                for name, _ in scope.get("headers") or []
                if name.lower().startswith(b"x-")
            )
            line = " ".join([scope["method"], scope["path"], *names])
            with self.path.open("a", encoding="utf-8") as file:
                file.write(line + "\n")
        await self.app(scope, receive, send)


def _advertise_cimd() -> None:
    """Make the metadata say URL client ids (Client ID Metadata Documents) are accepted."""
    original = routes.build_metadata

    def build(*args: Any, **kwargs: Any) -> Any:
        metadata = original(*args, **kwargs)
        metadata.client_id_metadata_document_supported = True
        return metadata

    routes.build_metadata = build


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
    parser.add_argument(
        "--invalid-metadata",
        action="store_true",
        help="serve authorization server metadata that does not validate",
    )
    parser.add_argument(
        "--admin-scope-never",
        action="store_true",
        help=f"refuse {ADMIN_TOOL} whatever scopes the token holds",
    )
    parser.add_argument("--withhold-admin", action="store_true", help=f"never grant {ADMIN_SCOPE}")
    parser.add_argument(
        "--requests", type=Path, help="append one line per HTTP request that arrives to this file"
    )
    parser.add_argument(
        "--cimd-ca", type=Path, help="accept metadata-document client ids; trust these certs"
    )
    args = parser.parse_args(argv)
    if args.cimd_ca is not None:
        _advertise_cimd()
    if args.pkce_methods is not None:
        _advertise_pkce(args.pkce_methods.split(","))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    provider = ApprovingProvider(
        args.token_lifetime, args.events, args.withhold_admin, args.cimd_ca
    )
    if args.client_id:
        provider.clients[args.client_id] = OAuthClientInformationFull(
            client_id=args.client_id,
            client_secret=args.client_secret,
            redirect_uris=[args.redirect_uri],
            token_endpoint_auth_method="client_secret_basic" if args.client_secret else "none",
            grant_types=["authorization_code", "refresh_token"],
            scope=f"{SCOPE} {ADMIN_SCOPE}",
        )
    app = build_server(args.port, provider).streamable_http_app(host="127.0.0.1")
    gated: Any = ScopeGate(app, provider, args.port, args.admin_scope_never)
    if args.invalid_metadata:
        gated = InvalidMetadata(gated, args.port)
    if args.requests is not None:
        gated = RequestLog(gated, args.requests)
    uvicorn.run(gated, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
