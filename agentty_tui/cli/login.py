"""``login`` and ``logout``: a URL server's OAuth on a terminal (``bridge.auth``).

``TerminalLoginUI`` shows the URL and the progress on stderr and takes a pasted redirect on
stdin; ``call`` uses it too, for a step-up the server asks for during a call. ``logout``
forgets the stored record alone, without the SDK or the server.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentty_tui.cli.context import load_config, trusted
from agentty_tui.config import operations
from agentty_tui.config.trust import TrustGate
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HttpSpec

__all__ = [
    "TerminalLoginUI",
    "cmd_login",
    "cmd_logout",
    "url_server",
]


def url_server(
    path: Path | None, args: argparse.Namespace, *, connects: bool = False
) -> tuple[str, HttpSpec, float]:
    """The named server's expanded URL spec and request timeout, for login and logout.

    For a command that ``connects`` (login), a server that waits for trust is an
    ``OperationError`` before its headers are expanded or anything is sent (``--trust`` lets
    it through for this run), as the bridge holds it back."""
    from agentty_tui.bridge.auth.target import login_spec

    loaded = load_config(path, args)[1]
    config = operations.configured(loaded, args.name)
    if config.problem is not None:
        raise ConfigError(config.problem)
    if connects:
        gate = TrustGate(everything=trusted(args))
        gate.refuse_untrusted(loaded, config, "cannot log in before it is trusted")
    return config.name, login_spec(config), config.request_timeout


class TerminalLoginUI:
    """The command line's ``LoginUI``: the URL and progress on stderr, a paste on stdin."""

    def __init__(self, name: str) -> None:
        self.name = name

    def show_url(self, url: str) -> None:
        """Print the whole URL, so it can be copied when no browser opens."""
        print(
            f"To log in to {self.name!r}, open this URL in a browser:\n\n  {url}\n", file=sys.stderr
        )
        if sys.stdin.isatty():
            print("(or paste here the address the browser was sent to)", file=sys.stderr)
        print("waiting for the browser to come back…", file=sys.stderr)

    def tell(self, message: str) -> None:
        """One line of progress on stderr."""
        print(f"agentty-tui: {message}", file=sys.stderr)

    async def pasted_redirect(self) -> str | None:
        """A line typed on a terminal; nothing to read when stdin is not one."""
        if not sys.stdin.isatty():
            return None
        import anyio.to_thread

        line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        return line or None


async def cmd_login(path: Path | None, args: argparse.Namespace) -> int:
    """Run the OAuth login for one URL server; 0 once authorized, 1 with the reason if not."""
    from agentty_tui.bridge.auth import expires_in_words, login

    name, spec, request_timeout = url_server(path, args, connects=True)
    state = await login(spec, TerminalLoginUI(name), request_timeout=request_timeout)
    scopes = " ".join(state.scopes) or "none named"
    print(f"logged in to {name!r} (scopes: {scopes}; {expires_in_words(state)})")
    return 0


def cmd_logout(path: Path | None, args: argparse.Namespace) -> int:
    """Forget one URL server's tokens and client registration."""
    # The vault alone: forgetting a record needs neither the SDK nor the server.
    from agentty_tui.bridge.auth.vault import forget_record

    name, spec, _ = url_server(path, args)
    if forget_record(spec.url):
        print(f"logged out of {name!r}: its tokens and client registration are forgotten")
    else:
        print(f"{name!r} was not logged in")
    return 0
