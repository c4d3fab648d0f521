"""The one rule book of a valid server entry: its name, its command or its URL, env and headers.

Every way of adding a server (the picker's add form, ``agentty-tui add``, the bridge's
``plugin_add``) builds its entry here, so that what one accepts the others accept too; the
config loader applies the same URL rule (``url_transport``). The name rule is for new entries
only: a file another host wrote, with a name such as ``my server``, still loads as it is (the
wire catalog makes every name safe to send), and only an empty name is refused there.

Pure: nothing here reads a file or starts a process (``command_not_found`` only looks at PATH).
Messages are sentences a person can act on; a header's value is never quoted.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Collection, Mapping, Sequence
from typing import Literal
from urllib.parse import urlsplit

from pydantic import ValidationError

from agentty_tui.config.headers import header_problem
from agentty_tui.model import HttpSpec, StdioSpec

__all__ = [
    "MAX_NAME_LENGTH",
    "EntryError",
    "EntryField",
    "command_not_found",
    "env_name_problem",
    "http_spec",
    "name_problem",
    "new_server_name",
    "process_text_problem",
    "stdio_spec",
    "url_problem",
    "url_transport",
]

MAX_NAME_LENGTH = 64
"""The longest server name an add accepts."""

_NAME = re.compile(rf"[A-Za-z0-9_.-]{{1,{MAX_NAME_LENGTH}}}")
# A shell's ``NAME=value cmd`` prefix: POSIX environment names.
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)
# A lone surrogate: JSON can spell one (``"\ud800"``), UTF-8 cannot carry it to a process.
_SURROGATE = re.compile("[\ud800-\udfff]")

EntryField = Literal["name", "command", "url", "env", "header"]
"""The part of an entry a rule is about (the form marks that field, the CLI names the flag)."""


class EntryError(ValueError):
    """An entry the rules refuse: which part, and what to do about it.

    ``key`` is the env variable or header the message is about, when it is about one.
    """

    def __init__(self, field: EntryField, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.field: EntryField = field
        self.message = message
        self.key = key


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as the name of a new server, or ``None``."""
    if not name:
        return "Give the server a name."
    if not _NAME.fullmatch(name):
        return f"Use up to {MAX_NAME_LENGTH} letters, digits, '.', '_' or '-' in the name."
    return None


def new_server_name(name: str, existing: Collection[str]) -> str:
    """``name`` once it follows the name rule and no server has it; else ``EntryError``."""
    if (problem := name_problem(name)) is not None:
        raise EntryError("name", problem)
    if name in existing:
        raise EntryError("name", f"A server named {name!r} already exists.")
    return name


def url_transport(url: str, explicit: str | None = None) -> Literal["streamable-http", "sse"]:
    """The HTTP transport of ``url``: ``explicit`` (a config's ``type``) when given, else SSE for
    a path that ends in ``/sse`` (the SDK's and most hosts' convention), else Streamable HTTP."""
    if explicit is not None:
        return "sse" if explicit == "sse" else "streamable-http"
    if url_problem(url) is not None:
        return "streamable-http"  # refused where it is loaded; a guess must not raise
    return "sse" if urlsplit(url).path.rstrip("/").endswith("/sse") else "streamable-http"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot even be taken apart as a URL (``https://[host``: an unclosed IPv6
    bracket), or ``None``. Whatever a file holds, the reader names the entry instead of
    failing the whole load with the parser's bare error."""
    try:
        urlsplit(url)
    except ValueError as error:
        return f"is not a URL ({error})"
    return None


def process_text_problem(text: str) -> str | None:
    """Why ``text`` cannot be handed to a process (as its command, an argument, an env value or
    its working directory), or ``None``: the operating system takes no NUL in any of them, and
    a lone surrogate is no text it can be given."""
    if "\x00" in text:
        return "it holds a NUL character (\\u0000), which no process can be given"
    if _SURROGATE.search(text):
        return (
            "it holds a lone surrogate (\\ud800-\\udfff), which is not text a process can be given"
        )
    return None


def env_name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as the name of an environment variable, or ``None``."""
    if not name or "=" in name or "\x00" in name or _SURROGATE.search(name):
        why = "no '=', NUL or lone surrogate; not empty"
        return f"{name!r} cannot be an environment variable ({why})."
    return None


def stdio_spec(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None
) -> StdioSpec:
    """A command server's spec from its command line (already split into words)."""
    if not argv or not argv[0]:
        raise EntryError("command", "Give a command to run, or a URL to connect to.")
    if _ENV_ASSIGNMENT.fullmatch(argv[0]):
        rest = f" and start the command with {argv[1]!r}" if len(argv) > 1 else ""
        raise EntryError(
            "command",
            f"{argv[0]!r} sets an environment variable, it is not a command: "
            f"put {argv[0]} under env{rest}.",
        )
    for word in (*argv, cwd or ""):
        if (why := process_text_problem(word)) is not None:
            raise EntryError("command", f"{word!r}: {why}.")
    env = dict(env or {})
    for key, value in env.items():
        if (why := env_name_problem(key)) is not None:
            raise EntryError("env", why, key=key)
        if (why := process_text_problem(value)) is not None:
            raise EntryError("env", f"The value of {key}: {why}.", key=key)
    try:
        return StdioSpec(command=argv[0], args=tuple(argv[1:]), env=env, cwd=cwd or None)
    except ValidationError as exc:
        raise EntryError("command", exc.errors(include_url=False)[0]["msg"]) from None


def command_not_found(command: str) -> str | None:
    """Why ``command`` cannot be run from here (it is not on PATH), or ``None``."""
    if shutil.which(command) is None:
        return f"Command not found: {command!r} (is it installed and on PATH?)"
    return None


def http_spec(
    url: str, headers: Mapping[str, str] | None = None, *, sse: bool | None = None
) -> HttpSpec:
    """A URL server's spec; ``sse`` forces the transport, else ``url_transport`` decides."""
    if (problem := url_problem(url)) is not None:
        raise EntryError("url", f"The URL {problem}.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EntryError("url", "The URL must start with http:// or https:// and name a host.")
    headers = dict(headers or {})
    for key, value in headers.items():
        if (why := header_problem(key, value)) is not None:
            raise EntryError("header", why, key=key)
    transport = url_transport(url, None if sse is None else ("sse" if sse else "http"))
    try:
        return HttpSpec(url=url, headers=headers, transport=transport)
    except ValidationError as exc:
        raise EntryError("url", exc.errors(include_url=False)[0]["msg"]) from None
