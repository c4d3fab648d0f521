"""MCP authorization (OAuth 2.1) for URL servers: tokens kept safely, logins, refresh.

- ``vault``: where a server's record is kept, the OS keyring or a private file.
- ``storage``: the SDK's ``TokenStorage`` over a vault.
- ``callback``: the loopback listener that receives the browser's redirect.
- ``browser``: showing and opening the URL, for a login or a step-up.
- ``provider``: our one extension of the SDK's ``OAuthClientProvider``.
- ``target``: which URL server a login or a logout is for (its spec, expanded).
- ``login``: running a login, logging out, and what a connection needs to know.

Its public names are imported on first use (``__getattr__``), as the bridge package's are:
``logout`` forgets a record through ``vault`` alone, without the SDK the other modules import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # What the type checker reads instead of ``__getattr__``, which it does not see.
    from agentty_tui.bridge.auth.browser import BrowserStepUp, BrowserTrip, LoginUI
    from agentty_tui.bridge.auth.callback import DEFAULT_LOGIN_TIMEOUT, LoginError, LoopbackCallback
    from agentty_tui.bridge.auth.login import (
        LOGIN_TIMEOUT_ENV,
        auth_state,
        connect_provider,
        expires_in_words,
        login,
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
    from agentty_tui.bridge.auth.storage import ServerTokenStorage
    from agentty_tui.bridge.auth.target import login_spec
    from agentty_tui.bridge.auth.vault import FileVault, default_auth_dir

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

_HOMES = {
    "BrowserStepUp": "agentty_tui.bridge.auth.browser",
    "BrowserTrip": "agentty_tui.bridge.auth.browser",
    "LoginUI": "agentty_tui.bridge.auth.browser",
    "DEFAULT_LOGIN_TIMEOUT": "agentty_tui.bridge.auth.callback",
    "LoginError": "agentty_tui.bridge.auth.callback",
    "LoopbackCallback": "agentty_tui.bridge.auth.callback",
    "LOGIN_TIMEOUT_ENV": "agentty_tui.bridge.auth.login",
    "auth_state": "agentty_tui.bridge.auth.login",
    "connect_provider": "agentty_tui.bridge.auth.login",
    "expires_in_words": "agentty_tui.bridge.auth.login",
    "login": "agentty_tui.bridge.auth.login",
    "login_spec": "agentty_tui.bridge.auth.target",
    "login_timeout": "agentty_tui.bridge.auth.login",
    "logout": "agentty_tui.bridge.auth.login",
    "uses_oauth": "agentty_tui.bridge.auth.login",
    "MAX_STEP_UPS": "agentty_tui.bridge.auth.provider",
    "AgenttyOAuthProvider": "agentty_tui.bridge.auth.provider",
    "LoginRequired": "agentty_tui.bridge.auth.provider",
    "StepUp": "agentty_tui.bridge.auth.provider",
    "StepUpRefused": "agentty_tui.bridge.auth.provider",
    "FileVault": "agentty_tui.bridge.auth.vault",
    "ServerTokenStorage": "agentty_tui.bridge.auth.storage",
    "default_auth_dir": "agentty_tui.bridge.auth.vault",
}
"""The module each lazy public name is defined in."""


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """Import a public name's module on first use, and keep its names here from then on.

        Every name of that module is bound at once: importing ``login.py`` makes ``login`` the
        submodule here, and the function of that name must replace it (as an eager import
        would), or a later ``from agentty_tui.bridge.auth import login`` gets the module.
        """
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        module = importlib.import_module(home)
        for each, where in _HOMES.items():
            if where == home:
                globals()[each] = getattr(module, each)
        return globals()[name]
