"""Our one extension of the mcp SDK's ``OAuthClientProvider``, and why each part exists.

The SDK provider does discovery, registration, PKCE, the token exchange and refresh. Where it
falls short of the MCP authorization spec or of what a terminal tool needs, this subclass adds:

- **S256 is required.** The SDK sends S256 whatever the authorization server advertises; the
  spec says a client must refuse a server whose metadata does not list S256 in
  ``code_challenge_methods_supported``. The SDK passes over metadata that does not validate,
  or is not found, without a word; the refusal then says that (which address, which field),
  not that S256 is missing.
- **Expiry survives a restart.** The SDK keeps the expiry time only in memory, so tokens
  loaded from storage look valid forever; we restore it from the stored ``expires_at``, so an
  expired token is refreshed before it is sent.
- **Refresh on 401.** The SDK answers any 401 with a whole new login; a stored access token the
  server no longer accepts is first refreshed once (a refresh token may still be good).
- **Never a browser unasked.** ``list`` and connecting must not start a login: without an
  interactive user the provider stops at the first 401 (or 403 ``insufficient_scope``) that
  a refresh cannot cure, and says a login is needed (and why). The scopes a step-up asked for
  are remembered, so the next login asks for them too.
- **Step-up, bounded.** With a ``StepUp`` (the command line's ``call``), a ``403
  insufficient_scope`` runs the browser flow for the union of the granted and the challenged
  scopes, at most ``MAX_STEP_UPS`` times per connection; a challenge for scopes the token
  already holds cannot be cured by asking again and ends the request with the reason.
- **Configured scopes and a pre-registered client.** Scopes named in the config replace the
  ones discovered; a client id from the config is used instead of registering one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Protocol

import httpx2
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.utils import (
    extract_field_from_www_auth,
    extract_scope_from_www_auth,
    union_scopes,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
)
from pydantic import ValidationError

from agentty_tui.bridge._sdk import OAuthProviderBase
from agentty_tui.bridge.auth.storage import ServerTokenStorage
from agentty_tui.model import OAuthSettings
from agentty_tui.secrets import mask_url

__all__ = ["MAX_STEP_UPS", "AgenttyOAuthProvider", "LoginRequired", "StepUp", "StepUpRefused"]

MAX_STEP_UPS = 2
"""Browser trips a connection may make for ``403 insufficient_scope`` before it gives up."""

AuthorizationGrant = Callable[[], Awaitable[tuple[str, str]]]
"""The SDK's authorization step: sends the browser, returns the code and the PKCE verifier."""


class LoginRequired(OAuthFlowError):
    """The server wants a login and nobody is there to do it (``list``, connecting)."""


class StepUpRefused(OAuthFlowError):
    """A ``403 insufficient_scope`` that asking for more scope cannot cure (or asked too often)."""


class StepUp(Protocol):
    """How a non-interactive connection runs the browser flow for a step-up (``call``)."""

    async def authorize(
        self, provider: AgenttyOAuthProvider, grant: AuthorizationGrant
    ) -> tuple[str, str]:
        """Open the redirect listener and a browser, run ``grant`` through them."""


_AS_METADATA_PATHS = (
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)
"""Where the SDK looks for an authorization server's metadata (RFC 8414, OpenID Discovery)."""

_MAX_DETAIL = 200
"""Characters of a validation problem kept in the message (the document is the server's)."""


def _metadata_problem(request: httpx2.Request, response: httpx2.Response) -> str | None:
    """Why the answer (read) to one of the SDK's authorization server metadata requests was
    not used (``None`` for another request, or metadata that validates)."""
    if not any(part in request.url.path for part in _AS_METADATA_PATHS):
        return None
    where = mask_url(str(request.url))
    if response.status_code != 200:
        return f"{where}: HTTP {response.status_code}"
    try:
        OAuthMetadata.model_validate_json(response.content)
    except ValidationError as error:
        problems = error.errors(include_url=False, include_input=False)
        first = problems[0]
        field = ".".join(str(part) for part in first["loc"])
        detail = f"{field}: {first['msg']}" if field else first["msg"]
        if len(problems) > 1:
            detail += f" (and {len(problems) - 1} more)"
        if len(detail) > _MAX_DETAIL:
            detail = detail[: _MAX_DETAIL - 1] + "…"
        return f"{where} does not validate: {detail}"
    return None


class AgenttyOAuthProvider(OAuthProviderBase):
    """``OAuthClientProvider`` with the additions listed in this module's docstring."""

    def __init__(
        self,
        server_url: str,
        storage: ServerTokenStorage,
        *,
        settings: OAuthSettings | None = None,
        redirect_uri: str = "http://127.0.0.1/callback",
        redirect_handler: Callable[[str], Awaitable[None]] | None = None,
        callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]] | None = None,
        step_up: StepUp | None = None,
    ) -> None:
        self.settings = settings or OAuthSettings()
        self.interactive = redirect_handler is not None and callback_handler is not None
        """Whether a login may be run (a user is there to open the URL)."""
        self.step_up = step_up
        """Runs the browser for a step-up when not ``interactive``; ``None``: no step-up."""
        self.step_ups = 0
        """Browser trips made for ``403 insufficient_scope`` so far."""
        self._stepping_up = False
        self.login_required = False
        """Set once the server turned us away and only a login can help."""
        self.login_reason: str | None = None
        """Why a login is needed, when it is more than "no usable token" (a step-up)."""
        self.fresh_login = False
        """Ignore stored tokens: a login asks for new ones even when the old still work."""
        self.failure: Exception | None = None
        """The OAuth error that ended the flow, if one did (the transport may hide it)."""
        self._metadata_problems: list[str] = []  # why each metadata address was passed over
        self.storage = storage
        secret = self.settings.client_secret
        metadata = OAuthClientMetadata.model_validate(
            {
                "client_name": "agentty-tui",
                "redirect_uris": [redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "native",
                "scope": " ".join(self.settings.scopes) if self.settings.scopes else None,
            }
        )
        super().__init__(
            server_url,
            metadata,
            storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
            client_metadata_url=self.settings.client_metadata_url,
        )
        self._pre_registered: OAuthClientInformationFull | None = None
        if self.settings.client_id is not None:
            self._pre_registered = OAuthClientInformationFull(
                client_id=self.settings.client_id,
                client_secret=secret,
                redirect_uris=metadata.redirect_uris,
                token_endpoint_auth_method="client_secret_basic" if secret else "none",
                grant_types=["authorization_code", "refresh_token"],
            )

    async def after_initialize(self) -> None:
        """Forget the tokens for a fresh login, or restore their stored expiry."""
        if self.fresh_login:
            self.context.clear_tokens()
            return self._use_pre_registered()
        record = self.storage.load()
        if record.tokens is not None and record.expires_at is not None:
            self.context.token_expiry_time = record.expires_at
        self._use_pre_registered()

    def _use_pre_registered(self) -> None:
        if self._pre_registered is not None:
            stored = self.context.client_info
            if stored is None or stored.client_id != self._pre_registered.client_id:
                self.context.client_info = self._pre_registered

    async def wrap_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, refreshing once on a 401 and stopping where only a login helps."""
        refreshed = False
        stepped_up = False  # the SDK's flow steps up once per request, then gives up
        self._metadata_problems = []  # this flow's discovery
        flow = self.sdk_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                await self._note_metadata(outgoing, response)
                if outgoing is request and _turned_away(response):
                    if response.status_code == 403:
                        await self._before_step_up(response)  # raises where it must stop
                        if stepped_up:
                            # Another round: a fresh SDK flow, handed this refusal at once.
                            await flow.aclose()
                            flow = self.sdk_auth_flow(request)
                            outgoing = await flow.__anext__()
                            if outgoing is not request:
                                continue  # it refreshes first: send that, then the request
                        stepped_up = True
                    elif response.status_code == 401 and not refreshed and self._may_refresh():
                        # Start over with the access token marked expired: the SDK's flow then
                        # refreshes first and sends the request again.
                        refreshed = True
                        await flow.aclose()
                        self.context.token_expiry_time = 1.0
                        flow = self.sdk_auth_flow(request)
                        outgoing = await flow.__anext__()
                        continue
                    elif not self.interactive:
                        if not _asks_for_bearer(response):
                            return  # not OAuth: the caller gets the answer as it is
                        self.login_required = True
                        raise LoginRequired("the server needs a login")
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except OAuthFlowError as exc:
            if not isinstance(exc, LoginRequired):
                self.failure = exc
            raise
        finally:
            await flow.aclose()

    async def _note_metadata(self, request: httpx2.Request, response: httpx2.Response) -> None:
        """Remember why a metadata address was passed over; metadata that validates clears it."""
        if any(part in request.url.path for part in _AS_METADATA_PATHS):
            if response.status_code == 200:
                await response.aread()  # the SDK reads it next: a second read is the same bytes
            problem = _metadata_problem(request, response)
            if problem is None:
                self._metadata_problems.clear()
            else:
                self._metadata_problems.append(problem)

    def _no_metadata(self) -> str:
        """Why the flow has no authorization server metadata, in words a user can act on."""
        invalid = [p for p in self._metadata_problems if " does not validate: " in p]
        if invalid:
            return (
                f"the authorization server's metadata at {'; '.join(invalid)}; refusing to log "
                "in without valid metadata"
            )
        tried = f" (tried {', '.join(self._metadata_problems)})" if self._metadata_problems else ""
        return f"no authorization server metadata was found{tried}; refusing to log in without it"

    def _may_refresh(self) -> bool:
        return self.initialized and self.context.can_refresh_token()

    async def _before_step_up(self, response: httpx2.Response) -> None:
        """Decide on a ``403 insufficient_scope``: step up, or say why not (raises)."""
        tokens = self.context.current_tokens
        granted = set((tokens.scope or "").split()) if tokens is not None else set()
        challenged = extract_scope_from_www_auth(response)
        wanted = union_scopes(" ".join(sorted(granted)) or None, challenged)
        missing = sorted(set((challenged or "").split()) - granted)
        if challenged and not missing:
            # Asking again for what the token holds would loop through the browser forever.
            raise StepUpRefused(
                f"the server refuses the request for want of scope ({challenged}), which the "
                "token already holds"
            )
        needed = " ".join(missing) or "more scope"
        if self.interactive:
            return
        if self.step_up is None:
            await self.storage.want_scope(wanted)
            self.login_required = True
            self.login_reason = f"the server asks for more scope: {needed}"
            raise LoginRequired(self.login_reason)
        if self.step_ups >= MAX_STEP_UPS:
            raise StepUpRefused(
                f"the server still asks for more scope ({needed}) after {self.step_ups} "
                "logins for it; giving up"
            )
        self.step_ups += 1
        self._stepping_up = True

    async def before_code_grant(self) -> None:
        """Refuse an authorization server without PKCE S256; ask for the configured scopes
        (with what a step-up, or an earlier one remembered in storage, asks for)."""
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise OAuthFlowError(self._no_metadata())
        methods = metadata.code_challenge_methods_supported
        if not methods or "S256" not in methods:
            raise OAuthFlowError(
                f"{metadata.issuer} does not advertise PKCE S256 "
                f"(code_challenge_methods_supported: {methods or 'none'}); refusing to log in "
                "without it"
            )
        if self.settings.scopes:
            configured = " ".join(self.settings.scopes)
            self.context.client_metadata.scope = union_scopes(
                configured, self.context.client_metadata.scope if self._stepping_up else None
            )
        if self.fresh_login:
            # What an earlier step-up asked for, which a plain 401 does not name again.
            wanted = self.storage.load().wanted_scope
            self.context.client_metadata.scope = union_scopes(
                self.context.client_metadata.scope, wanted
            )

    async def run_code_grant(self, grant: AuthorizationGrant) -> tuple[str, str]:
        """A step-up's grant goes through the ``StepUp`` (a browser of its own); others as is."""
        if self._stepping_up and self.step_up is not None:
            self._stepping_up = False
            return await self.step_up.authorize(self, grant)
        return await grant()


def _asks_for_bearer(response: httpx2.Response) -> bool:
    challenge = response.headers.get("www-authenticate", "")
    return challenge.strip().lower().startswith("bearer")


def _turned_away(response: httpx2.Response) -> bool:
    """A 401, or a 403 that asks for more scope (step-up)."""
    if response.status_code == 401:
        return True
    return (
        response.status_code == 403
        and extract_field_from_www_auth(response, "error") == "insufficient_scope"
    )
