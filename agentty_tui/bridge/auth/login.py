"""Running a login for one URL server, and what the rest of the bridge asks about logins.

``login`` is the interactive flow: a loopback listener for the redirect, the authorization URL
shown through the caller's ``LoginUI`` and opened with Python's ``webbrowser`` (so ``$BROWSER``
is honoured), the SDK provider doing discovery, registration, PKCE and the token exchange, and
one MCP handshake to prove the server accepts the new token. ``connect_provider`` is the quiet
provider every ordinary connection uses: stored tokens, refreshed, and never a browser.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import anyio
import mcp_types as types
from mcp import Client

from agentty_tui import __version__
from agentty_tui.bridge.auth.browser import BrowserStepUp, BrowserTrip, LoginUI
from agentty_tui.bridge.auth.callback import DEFAULT_LOGIN_TIMEOUT, LoginError, LoopbackCallback
from agentty_tui.bridge.auth.provider import AgenttyOAuthProvider
from agentty_tui.bridge.auth.storage import ServerTokenStorage, Vault
from agentty_tui.bridge.failures import root_cause
from agentty_tui.bridge.http import HttpTransport
from agentty_tui.model import AuthState, HttpSpec
from agentty_tui.secrets import Redactor, mask_url, mask_urls, mask_value, url_credentials

__all__ = [
    "LOGIN_TIMEOUT_ENV",
    "LoginUI",
    "auth_state",
    "connect_provider",
    "expires_in_words",
    "login",
    "login_timeout",
    "logout",
    "uses_oauth",
]

LOGIN_TIMEOUT_ENV = "AGENTTY_LOGIN_TIMEOUT"
"""Environment variable: seconds a login waits for the browser (default 300)."""


def login_timeout() -> float:
    """``$AGENTTY_LOGIN_TIMEOUT`` seconds, else five minutes."""
    text = os.environ.get(LOGIN_TIMEOUT_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_LOGIN_TIMEOUT
    return value if value > 0 else DEFAULT_LOGIN_TIMEOUT


def uses_oauth(spec: HttpSpec) -> bool:
    """Whether connections to ``spec`` go through OAuth: not when the config sets the
    ``Authorization`` header itself (the user manages that token)."""
    return not any(key.lower() == "authorization" for key in spec.headers)


def connect_provider(
    spec: HttpSpec, vault: Vault | None = None, ui: LoginUI | None = None
) -> AgenttyOAuthProvider | None:
    """The provider for ordinary connections (``None`` when OAuth is not used): it never starts
    a login; with a ``ui`` it completes a step-up (``403 insufficient_scope``) in the browser."""
    if not uses_oauth(spec):
        return None
    step_up = BrowserStepUp(spec, ui, login_timeout()) if ui is not None else None
    storage = ServerTokenStorage(spec.url, vault)
    return AgenttyOAuthProvider(spec.url, storage, settings=spec.oauth, step_up=step_up)


def auth_state(spec: HttpSpec, vault: Vault | None = None) -> AuthState:
    """What is stored for ``spec``'s server: logged in or not, scopes, expiry (no token)."""
    try:
        record = ServerTokenStorage(spec.url, vault).load()
    except OSError:
        return AuthState()
    tokens = record.tokens
    if tokens is None:
        return AuthState()
    scopes = tuple(tokens.scope.split()) if tokens.scope else ()
    return AuthState(logged_in=True, scopes=scopes, expires_at=record.expires_at)


def logout(spec: HttpSpec, vault: Vault | None = None) -> bool:
    """Forget the tokens and the client registration of ``spec``'s server."""
    return ServerTokenStorage(spec.url, vault).forget()


def _stored_port(storage: ServerTokenStorage) -> int | None:
    """The loopback port our earlier registration's redirect URI names (to reuse it)."""
    client = storage.load().client_info
    for uri in (client.redirect_uris or []) if client is not None else []:
        if uri.host == "127.0.0.1" and uri.port:
            return uri.port
    return None


async def _open_callback(spec: HttpSpec, storage: ServerTokenStorage) -> LoopbackCallback:
    configured = spec.oauth.callback_port if spec.oauth is not None else None
    if configured is not None:
        try:
            return await LoopbackCallback(configured).__aenter__()
        except OSError as exc:
            raise LoginError(
                f"cannot listen on 127.0.0.1:{configured} (callbackPort): {exc}"
            ) from None
    remembered = _stored_port(storage)
    if remembered is not None:
        try:
            return await LoopbackCallback(remembered).__aenter__()
        except OSError:
            # The registered redirect URI cannot be served: register again with a new one.
            await storage.forget_client()
    return await LoopbackCallback().__aenter__()


async def login(
    spec: HttpSpec,
    ui: LoginUI,
    *,
    timeout: float | None = None,
    request_timeout: float = 60.0,
    vault: Vault | None = None,
) -> AuthState:
    """Log in to ``spec``'s server: browser, redirect, tokens stored, one handshake to check.

    Raises ``LoginError`` (denied, timed out, refused) with the reason.
    """
    if not uses_oauth(spec):
        raise LoginError("the config sets an Authorization header for this server; no login")
    wait = timeout if timeout is not None else login_timeout()
    storage = ServerTokenStorage(spec.url, vault)
    callback = await _open_callback(spec, storage)
    error: LoginError | None = None
    completed = False
    # An error is raised after the trip's task group is left, so it arrives as itself.
    async with BrowserTrip.open(ui, callback, wait) as trip:
        provider = AgenttyOAuthProvider(
            spec.url,
            storage,
            settings=spec.oauth,
            redirect_uri=callback.redirect_uri,
            redirect_handler=trip.redirect,
            callback_handler=trip.receive,
        )
        provider.fresh_login = True
        try:
            await _handshake(spec, provider, request_timeout, wait)
            completed = True
        except Exception as exc:
            error = _login_failure(exc, trip.failure, provider, spec)
        finally:
            await callback.__aexit__(None, None, None)
    if error is not None:
        raise error
    # The SDK's transport turns an error of the auth flow into a cancellation, which the
    # cancelled task group above absorbs: what the flow itself recorded decides.
    if trip.failure or provider.failure is not None or not completed:
        raise _login_failure(
            RuntimeError("the login did not complete"), trip.failure, provider, spec
        )
    state = auth_state(spec, vault)
    if not state.logged_in:
        raise LoginError("the server accepted the connection but no token was stored")
    return state


async def _handshake(
    spec: HttpSpec, provider: AgenttyOAuthProvider, request_timeout: float, wait: float
) -> None:
    transport = HttpTransport(spec, request_timeout, auth=provider)
    client = Client(
        transport,
        mode="auto",
        read_timeout_seconds=request_timeout,
        cache=None,
        client_info=types.Implementation(name="agentty-tui", version=__version__),
    )
    with anyio.fail_after(wait + 2 * request_timeout):
        async with client:
            pass


def _login_failure(
    exc: BaseException,
    failure: Sequence[BaseException],
    provider: AgenttyOAuthProvider,
    spec: HttpSpec,
) -> LoginError:
    """The reason a login failed, from whichever layer knew it best, with every URL masked.

    ``spec`` is expanded: its URL may hold a password or a ``?token=`` (written so or from a
    ``${VAR}``), and the SDK's errors quote that URL, or parts of it percent-decoded.
    """
    url = mask_url(spec.url)
    if failure:
        text = str(failure[0])
    elif provider.failure is not None:
        text = f"login to {url} failed: {provider.failure}"
    elif isinstance(cause := root_cause(exc), TimeoutError):
        text = f"login to {url} timed out"
    else:
        text = f"login to {url} failed: {str(cause) or type(cause).__name__}"
    credentials = Redactor.of((part, mask_value(part)) for part in url_credentials(spec.url))
    return LoginError(mask_urls(credentials.scrub(text)))


def expires_in_words(state: AuthState) -> str:
    """``expires in 59 min`` / ``expired`` / ``no expiry given``, for messages."""
    if state.expires_at is None:
        return "no expiry given"
    left = state.expires_at - time.time()
    if left <= 0:
        return "access token expired (it is refreshed on the next use)"
    return f"access token expires in {int(left // 60)} min {int(left % 60)} s"
