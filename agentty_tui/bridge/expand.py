"""``${VAR}`` and ``${VAR:-default}`` in a server spec, expanded from the environment.

Expansion happens at connect time, on a copy: the config keeps the references, so a secret
taken from the environment is never written back into the file. What the expansion put in is
also what must never be shown: ``redactor_for`` gives the session a ``Redactor`` that turns
each expanded value back into its reference (and masks header values, env values and URL
credentials) in any text that might quote them, such as an exception's message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from agentty_tui.config.entry_rules import header_problem
from agentty_tui.errors import AgenttyError
from agentty_tui.secrets import Redactor, mask_url, mask_value, url_credentials
from agentty_tui.specs import HttpSpec, ServerSpec, StdioSpec

__all__ = ["ExpansionError", "expand_spec", "redactor_for", "references"]

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class ExpansionError(AgenttyError):
    """A ``${VAR}`` reference that cannot be expanded into a usable value: the variable is not
    set and has no default, or its value makes an illegal header."""


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


def _header(name: str, template: str, environ: Mapping[str, str]) -> str:
    """One header value expanded, and checked by the same rule as the config's own values."""
    value = _expand(template, environ, f"header {name!r}")
    why = header_problem(name, value)
    if why is not None:
        variables = ", ".join(f"${{{m.group(1)}}}" for m in _REFERENCE.finditer(template))
        after = f" after expanding {variables}" if variables else ""
        raise ExpansionError(f"header {name!r}{after}: {why}")
    return value


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
    oauth = spec.oauth
    if oauth is not None and oauth.client_secret is not None:
        secret = _expand(oauth.client_secret, environ, "oauth.clientSecret")
        oauth = oauth.model_copy(update={"client_secret": secret})
    return HttpSpec(
        url=_expand(spec.url, environ, "url"),
        headers={k: _header(k, v, environ) for k, v in spec.headers.items()},
        transport=spec.transport,
        oauth=oauth,
    )


def _texts(spec: ServerSpec) -> Iterator[str]:
    """Every field of ``spec`` that expansion touches."""
    if isinstance(spec, StdioSpec):
        yield spec.command
        yield from spec.args
        yield from spec.env.values()
    else:
        yield spec.url
        yield from spec.headers.values()


def references(spec: ServerSpec) -> set[str]:
    """The names of the variables ``spec`` refers to (``${VAR}``), wherever expansion looks."""
    texts = [*_texts(spec)]
    if isinstance(spec, HttpSpec) and spec.oauth is not None and spec.oauth.client_secret:
        texts.append(spec.oauth.client_secret)
    return {match.group(1) for text in texts for match in _REFERENCE.finditer(text)}


_SECRET_LENGTH = 8
"""Env and header values this long are removed from text too; shorter ones (``true``, ``UTC``)
are settings rather than secrets, and replacing them would garble a server's stderr."""


def _secret_values(spec: ServerSpec) -> Iterator[str]:
    """Values shown only masked: those of env and headers, whole and their last word (the
    token of ``Bearer <token>``)."""
    values = spec.env.values() if isinstance(spec, StdioSpec) else spec.headers.values()
    for value in values:
        for part in (value, *value.split()[-1:]):
            if len(part) >= _SECRET_LENGTH:
                yield part


def redactor_for(
    template: ServerSpec, expanded: ServerSpec, environ: Mapping[str, str]
) -> Redactor:
    """What to remove from text about a server started from ``expanded``, which came from
    ``template`` (the spec as written in the config) under ``environ``."""
    pairs: list[tuple[str, str]] = []
    if isinstance(template, HttpSpec) and isinstance(expanded, HttpSpec):
        # The whole URL first (it is the longest), so a quoted URL reads as the config has it.
        shown = mask_url(template.url)
        pairs.append((expanded.url, shown))
        # The template's own credentials are the expanded URL's too, unless they are references,
        # which may be shown (and which ``mask_url`` leaves in the text it describes).
        pairs += [(part, mask_value(part)) for part in url_credentials(expanded.url)]
    for text in _texts(template):
        for match in _REFERENCE.finditer(text):
            value = environ.get(match.group(1))
            if value:
                pairs.append((value, f"${{{match.group(1)}}}"))
    for spec in (template, expanded):
        pairs += [(value, mask_value(value)) for value in _secret_values(spec)]
    return Redactor.of(pairs)
