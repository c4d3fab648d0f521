"""Read a ``.env`` file, as VS Code's ``envFile`` names one for a stdio server.

The format people use with it: one ``KEY=VALUE`` a line, blank lines and ``#`` comment lines
skipped, an optional ``export`` before the key. A value may be single-quoted (taken as it is),
double-quoted (``\\n``, ``\\t``, ``\\"`` and ``\\\\`` are escapes) or bare (trimmed, and cut at a
`` #`` that starts a comment). Anything else is a ``ConfigError`` naming the file and line, so a
typo never silently drops a variable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError

__all__ = ["EnvFile", "parse_env_file", "read_env_file"]

_LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*")
_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def _double_quoted(body: str) -> str | None:
    """The text of a double-quoted value without its quotes; ``None`` when unterminated."""
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            following = body[i + 1]
            out.append(_DOUBLE_ESCAPES.get(following, "\\" + following))
            i += 2
            continue
        if char == '"':
            rest = body[i + 1 :].strip()
            return "".join(out) if not rest or rest.startswith("#") else None
        out.append(char)
        i += 1
    return None


def _value(raw: str) -> str | None:
    """A value as written after ``=``; ``None`` when its quoting is broken."""
    if raw.startswith("'"):
        end = raw.find("'", 1)
        if end < 0:
            return None
        rest = raw[end + 1 :].strip()
        return raw[1:end] if not rest or rest.startswith("#") else None
    if raw.startswith('"'):
        return _double_quoted(raw[1:])
    comment = re.search(r"\s#", raw)
    return (raw[: comment.start()] if comment else raw).strip()


def parse_env_file(text: str, path: str) -> dict[str, str]:
    """The variables of an env file's text; a later line wins over an earlier one."""
    variables: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        value = None if match is None else _value(match.group(2))
        if match is None or value is None:
            raise ConfigError(
                "expected KEY=VALUE (a quoted value must be closed)", path=path, line=number
            )
        variables[match.group(1)] = value
    return variables


@dataclass(frozen=True, slots=True)
class EnvFile:
    """The variables of an env file, and whether the file may be trusted with them."""

    variables: dict[str, str]
    """Name to value; a later line wins over an earlier one."""
    insecure: str | None = None
    """Why the file is not trusted (others can change it): the variables decide what the
    commands using them do (``PATH``, ``LD_PRELOAD``), as the config's own ``env`` does."""


def read_env_file(path: Path) -> EnvFile:
    """The env file at ``path``; ``ConfigError`` when it cannot be read."""
    read = read_file(path)
    if read is None:
        raise ConfigError("no such file", path=str(path))
    variables = parse_env_file(decode_text(read.data, str(path)), str(path))
    return EnvFile(variables, file_trust_problem(str(path), read.mode, read.uid))
