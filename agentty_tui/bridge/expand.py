"""``${VAR}`` and ``${VAR:-default}`` in a server spec, expanded from the environment.

Expansion happens at connect time, on a copy: the config keeps the references, so a secret
taken from the environment is never written back into the file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agentty_tui.errors import AgenttyError
from agentty_tui.model import HttpSpec, ServerSpec, StdioSpec

__all__ = ["ExpansionError", "expand_spec"]

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class ExpansionError(AgenttyError):
    """A ``${VAR}`` reference to a variable that is not set and has no default."""


def _expand(text: str, environ: Mapping[str, str], where: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise ExpansionError(
                    f"environment variable {name!r} is not set (it is used in {where})"
                )
            return default
        return value

    return _REFERENCE.sub(replace, text)


def expand_spec(spec: ServerSpec, environ: Mapping[str, str]) -> ServerSpec:
    """``spec`` with every reference in command, args, env, url and headers expanded."""
    if isinstance(spec, StdioSpec):
        return StdioSpec(
            command=_expand(spec.command, environ, "command"),
            args=tuple(_expand(a, environ, f"argument {i + 1}") for i, a in enumerate(spec.args)),
            env={k: _expand(v, environ, f"env {k!r}") for k, v in spec.env.items()},
            cwd=spec.cwd,
        )
    assert isinstance(spec, HttpSpec)
    return HttpSpec(
        url=_expand(spec.url, environ, "url"),
        headers={k: _expand(v, environ, f"header {k!r}") for k, v in spec.headers.items()},
        transport=spec.transport,
    )
