"""MCP authorization (OAuth 2.1) for URL servers: tokens kept safely, logins, refresh.

- ``storage``: the SDK's ``TokenStorage`` over the OS keyring or a private file.
- ``callback``: the loopback listener that receives the browser's redirect.
- ``browser``: showing and opening the URL, for a login or a step-up.
- ``provider``: our one extension of the SDK's ``OAuthClientProvider``.
- ``login``: running a login, logging out, and what a connection needs to know.
"""

from agentty_tui.bridge.auth.browser import BrowserStepUp, BrowserTrip, LoginUI
from agentty_tui.bridge.auth.callback import DEFAULT_LOGIN_TIMEOUT, LoginError, LoopbackCallback
from agentty_tui.bridge.auth.login import (
    LOGIN_TIMEOUT_ENV,
    auth_state,
    connect_provider,
    expires_in_words,
    login,
    login_spec,
    login_timeout,
    logout,
    uses_oauth,
)
from agentty_tui.bridge.auth.provider import (
    MAX_STEP_UPS,
    AgenttyOAuthProvider,
    LoginRequired,
    StepUp,
    StepUpRefused,
)
from agentty_tui.bridge.auth.storage import FileVault, ServerTokenStorage, default_auth_dir

__all__ = [
    "DEFAULT_LOGIN_TIMEOUT",
    "LOGIN_TIMEOUT_ENV",
    "MAX_STEP_UPS",
    "AgenttyOAuthProvider",
    "BrowserStepUp",
    "BrowserTrip",
    "FileVault",
    "LoginError",
    "LoginRequired",
    "LoginUI",
    "LoopbackCallback",
    "ServerTokenStorage",
    "StepUp",
    "StepUpRefused",
    "auth_state",
    "connect_provider",
    "default_auth_dir",
    "expires_in_words",
    "login",
    "login_spec",
    "login_timeout",
    "logout",
    "uses_oauth",
]
