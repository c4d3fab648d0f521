"""Which URL server a login or a logout is for: its entry's spec, ``${VAR}`` expanded.

Apart from the login itself, so that ``logout`` finds the record to forget (kept under the
expanded URL) without the SDK.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentty_tui.bridge.expand import ExpansionError, expand_spec
from agentty_tui.errors import OperationError
from agentty_tui.specs import HttpSpec, ServerConfig

__all__ = ["login_spec"]


def login_spec(config: ServerConfig, environ: Mapping[str, str] | None = None) -> HttpSpec:
    """The URL server's spec with its ``${VAR}`` references expanded from ``environ`` (this
    process's environment by default; a bridge's servers' own, behind the daemon), for a login
    or a logout; ``OperationError`` for an entry that has no login (a command, or a variable
    not set)."""
    if not isinstance(config.spec, HttpSpec):
        raise OperationError(f"server {config.name!r} is not a URL server: it has no login")
    try:
        expanded = expand_spec(config.spec, os.environ if environ is None else environ)
    except ExpansionError as exc:
        raise OperationError(f"server {config.name!r}: {exc}") from exc
    assert isinstance(expanded, HttpSpec)
    return expanded
