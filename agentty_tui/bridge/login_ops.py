"""The bridge's OAuth operations: log in to a URL server, or forget its tokens; either way
the server alone is reconnected."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agentty_tui.bridge.auth import LoginUI, login, login_spec, logout
from agentty_tui.config.trust import TrustGate
from agentty_tui.errors import UnknownServerError
from agentty_tui.model import PluginConfig, PluginModel

__all__ = ["LoginOperations"]


class LoginOperations:
    """``login`` and ``logout``, for the bridge (which gives ``_config``, ``_trust`` and
    ``restart``)."""

    _config: PluginConfig
    _trust: TrustGate
    restart: Callable[[str], Awaitable[PluginModel]]

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Log in to the URL server ``name`` through ``ui``, then reconnect it alone.

        ``ui`` shows the authorization URL (also opened in the browser) and may take a pasted
        redirect; a login that is denied, times out or is refused raises ``LoginError``. A
        server that waits for trust is an ``OperationError``, before any request is sent.
        """
        config = self._config.server(name)
        if config is None:
            raise UnknownServerError(name)
        self._trust.refuse_untrusted(self._config, config, "cannot log in before it is trusted")
        await login(login_spec(config), ui, request_timeout=config.request_timeout)
        return await self.restart(name)

    async def logout(self, name: str) -> PluginModel:
        """Forget the URL server ``name``'s tokens and client registration; reconnect it."""
        config = self._config.server(name)
        if config is None:
            raise UnknownServerError(name)
        logout(login_spec(config))
        return await self.restart(name)
