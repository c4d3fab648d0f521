"""The one rule book of a server entry: what a valid one holds, what it runs or sends.

The rules of a valid entry: its name, its command or its URL, env and headers. Every way of adding a
server (the picker's add form, ``agentty-tui add``, the bridge's ``plugin_add``) builds its entry
here, so that what one accepts the others accept too; the config loader applies the same URL rule
(``url_transport``). The name rule is for new entries only: a file another host wrote, with a name
such as ``my server``, still loads as it is (the wire catalog makes every name safe to send), and
only an empty name is refused there.

The rules are pure: they read no file and start no process (``command_not_found`` only looks
at PATH).
Messages are sentences a person can act on; a header's value is never quoted.

The rule for HTTP header names and values (``header_problem``) is applied when a config is read and
after expansion. A header the HTTP client would refuse (a token pasted with its trailing newline)
used to fail the server only at connect time, with the whole value quoted in the error. Checked
here, it fails the entry with a message that names the header and says what is wrong, never what the
value is.

What an entry runs or sends, as the labelled facts a trust prompt shows: a project file comes with
the repository, so everything of its entry that decides what runs or what is sent is the
repository's to choose, not only the command: its own ``env`` (``"PATH": ".bin:/usr/bin"`` makes
``npx`` the repository's ``./.bin/npx``; ``LD_PRELOAD``, ``NODE_OPTIONS``), its ``cwd``, its
``envFile``; for a URL server the URL and the headers it sends (``Authorization: Bearer
${GITHUB_TOKEN}`` sends that variable to whoever the URL names). ``entry_facts`` lists all of it,
one ``EntryFact`` each, for every place that asks the user to trust an entry (the picker's row and
its ``T`` dialog, ``agentty-tui list``, the import plan):

- the command line, a URL among its arguments masked (``secrets.masked_command_line``);
- the executable it resolves to, looked up as the spawn looks it up (the entry's own ``PATH``,
  relative entries against its working directory), flagged when it lies inside the project
  folder or was found through a relative ``PATH`` entry;
- every env name; values masked (``secrets.mask_keeping_references``: a ``${VAR}`` shows, a
  literal does not), except for the variables that decide what runs (``PATH``, ``LD_*``,
  ``NODE_OPTIONS``, ``PYTHON*``, ...), shown whole and flagged;
- the ``cwd`` and the ``envFile`` path;
- the URL (``secrets.mask_url``) and each header's name with only its ``${VAR}`` references
  (an auth scheme word like ``Bearer`` kept, any literal text masked).

The facts are values as they may be shown but not yet made safe for a terminal (JSON output
keeps them as written); ``fact_lines`` and ``facts_line`` render them through ``safe_line``.
Reads the file system (a few ``stat`` calls for the lookup), nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import ValidationError

from agentty_tui.secrets import mask_keeping_references, mask_url, masked_command_line
from agentty_tui.specs import EntryFact, HttpSpec, ServerSpec, StdioSpec
from agentty_tui.terminal_text import safe_line

__all__ = [
    "AUTH_SCHEME_WORDS",
    "DECIDES",
    "INSIDE_PROJECT",
    "MAX_NAME_LENGTH",
    "MAX_ROOTS",
    "EntryError",
    "EntryField",
    "alert_summary",
    "command_not_found",
    "decides_what_runs",
    "entry_facts",
    "env_name_problem",
    "fact_lines",
    "facts_json",
    "facts_line",
    "header_problem",
    "http_spec",
    "name_problem",
    "new_server_name",
    "process_text_problem",
    "resolve_executable",
    "root_uri",
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


MAX_ROOTS = 64
"""The most roots one entry may offer its server (each is sent on every ``roots/list``)."""


def root_uri(value: str, folder: Path) -> str:
    """The absolute ``file://`` URI of one ``roots`` item: a ``file://`` URI as it is (it must
    be absolute), a path taken against ``folder`` (the config file's) when relative.
    Raises ``ValueError`` saying what is wrong (another scheme, a relative URI, a NUL)."""
    if not value:
        raise ValueError("must not be empty; give a folder or a file:// URI")
    if (why := process_text_problem(value)) is not None or any(ord(c) < 32 for c in value):
        raise ValueError(why or "it holds a control character")
    scheme = urlsplit(value).scheme if "://" in value else ""
    if scheme.lower() == "file":
        parts = urlsplit(value)
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise ValueError(f"{value!r} is not an absolute file:// URI (file:///abs/folder)")
        return value
    if scheme:
        raise ValueError(f"{value!r}: roots are folders or file:// URIs, not {scheme}:// URLs")
    path = Path(os.path.expanduser(value))
    return Path(os.path.normpath(folder / path)).as_uri()


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


# RFC 9110 token: the characters a field name may hold.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _value_problem(value: str) -> str | None:
    for position, char in enumerate(value, start=1):
        if char in "\r\n":
            if not value[position:].strip("\r\n"):
                return "its value ends with a line break: was it pasted with a newline?"
            return f"its value holds a line break (CR or LF) at character {position}"
        if char == "\x00":
            return f"its value holds a NUL character at character {position}"
        if char != "\t" and (ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F):
            code = f"U+{ord(char):04X}"
            return f"its value holds the control character {code} at character {position}"
        if ord(char) > 0x7F:
            # The HTTP client sends header values as ASCII bytes and would refuse this one.
            return f"its value holds a non-ASCII character at character {position}"
    if value != value.strip(" \t"):
        return "its value starts or ends with whitespace"
    return None


def header_problem(name: str, value: str) -> str | None:
    """What is wrong with the header ``name: value``, or ``None`` when it can be sent.

    The text never quotes the value (header values are secrets as often as not); the caller
    names the server and the header.
    """
    if not _TOKEN.fullmatch(name):
        return (
            "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only, "
            "no spaces or colons)"
        )
    problem = _value_problem(value)
    return None if problem is None else problem + " (the value is not shown)"


AUTH_SCHEME_WORDS = frozenset({"bearer", "basic", "token", "digest"})
"""Words of a header value that say how a secret is sent, not what it is: shown as written."""

_DECISIVE_NAMES = frozenset(
    {
        "PATH",
        "NODE_OPTIONS",
        "NODE_PATH",
        "BASH_ENV",
        "ENV",
        "PERL5LIB",
        "PERL5OPT",
        "RUBYLIB",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
    }
)
_DECISIVE_PREFIXES = ("LD_", "DYLD_", "PYTHON")

INSIDE_PROJECT = "inside the project folder"
"""The alert of an executable the project's own files provide."""

DECIDES = "decides what runs"
"""The alert of an env variable shown whole."""

RELATIVE = "found through a relative path"
"""The alert of an executable found through a relative ``PATH`` entry or command."""

# ``${VAR}`` and ``${VAR:-default}``, expanded as the spawn expands them (bridge/expand.py),
# for the lookup only: the facts show the entry as written.
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def decides_what_runs(name: str) -> bool:
    """Whether the env variable ``name`` changes which program runs or what it loads
    (``PATH``, ``LD_PRELOAD``, ``NODE_OPTIONS``, ``PYTHONPATH``...): its value is shown."""
    return name in _DECISIVE_NAMES or name.startswith(_DECISIVE_PREFIXES)


def _expanded(text: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        value = environ.get(match.group(1))
        if not value and match.group(2) is not None:
            return match.group(2)
        return value or ""

    return _REFERENCE.sub(replace, text)


def _executable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except OSError:
        return False


def resolve_executable(
    spec: StdioSpec, *, start: Path, environ: Mapping[str, str]
) -> tuple[Path | None, bool]:
    """The file ``spec``'s command runs, looked up as the spawn does (``subprocess`` with the
    child's environment: the entry's own ``PATH``, else ours; relative entries and a relative
    command against its working directory), and whether it was found through a relative
    path (a ``PATH`` entry like ``.bin``, a command like ``./run``). ``start``: where a server
    without ``cwd`` starts (our own working directory). ``(None, relative)`` when nothing
    executable is found."""
    cwd = start / _expanded(spec.cwd, environ) if spec.cwd else start
    command = _expanded(spec.command, environ)
    if os.sep in command:
        found = Path(os.path.normpath(cwd / command))
        return (found if _executable(found) else None), not os.path.isabs(command)
    if "PATH" in spec.env:
        search = _expanded(spec.env["PATH"], environ)
    else:
        search = environ.get("PATH", os.defpath)
    for folder in search.split(os.pathsep):
        candidate = Path(os.path.normpath(cwd / (folder or ".") / command))
        if _executable(candidate):
            return candidate, not os.path.isabs(folder)
    return None, False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (as written, or with its links resolved) lies in ``folder``."""
    try:
        root = folder.resolve()
        return path.is_relative_to(folder) or path.resolve().is_relative_to(root)
    except OSError:
        return False


def _resolved(
    spec: StdioSpec, start: Path, project: Path | None, environ: Mapping[str, str]
) -> EntryFact:
    found, relative = resolve_executable(spec, start=start, environ=environ)
    if found is None:
        return EntryFact(label="resolves", value="nothing executable on its PATH")
    alerts = []
    if project is not None and _inside(found, project):
        alerts.append(INSIDE_PROJECT)
    if relative:
        alerts.append(RELATIVE)
    return EntryFact(label="resolves", value=str(found), alert=", ".join(alerts) or None)


def _env_facts(env: Mapping[str, str]) -> Iterator[EntryFact]:
    """The variables that decide what runs first (whole, flagged), then the others masked."""
    decisive = [name for name in env if decides_what_runs(name)]
    for name in decisive:
        yield EntryFact(label="env", value=f"{name}={env[name]}", alert=DECIDES)
    for name, value in env.items():
        if name not in decisive:
            yield EntryFact(label="env", value=f"{name}={mask_keeping_references(value)}")


def entry_facts(
    spec: ServerSpec,
    *,
    env_file: str | None = None,
    start: Path | None = None,
    project: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[EntryFact, ...]:
    """Everything of an entry that decides what it runs or sends, one fact each, secrets
    masked. ``env_file``: the entry's ``envFile`` (``ServerConfig.env_file``); ``start``: the
    folder a server without ``cwd`` starts in (default: ours); ``project``: the project
    folder, whose executables are flagged; ``environ``: the environment the server inherits
    (default: ours)."""
    if isinstance(spec, HttpSpec):
        facts = [EntryFact(label="url", value=mask_url(spec.url))]
        facts += [
            EntryFact(
                label="header",
                value=f"{name}: {mask_keeping_references(value, keep_words=AUTH_SCHEME_WORDS)}",
            )
            for name, value in spec.headers.items()
        ]
        return tuple(facts)
    environ = os.environ if environ is None else environ
    start = Path.cwd() if start is None else start
    facts = [EntryFact(label="runs", value=masked_command_line(spec.command, spec.args))]
    resolved = _resolved(spec, start, project, environ)
    # An absolute command that is the file it runs, and is not flagged, says it once already.
    if resolved.alert is not None or resolved.value != spec.command:
        facts.append(resolved)
    if spec.cwd is not None:
        facts.append(EntryFact(label="cwd", value=spec.cwd))
    facts += _env_facts(spec.env)
    if env_file is not None:
        facts.append(EntryFact(label="envFile", value=env_file))
    return tuple(facts)


def alert_summary(facts: Sequence[EntryFact]) -> str:
    """The flagged facts in a few words, for a line too narrow for all of them (a row of the
    picker): ``runs a file of the project, sets PATH, LD_PRELOAD``; empty when none is."""
    words: list[str] = []
    names: list[str] = []
    for fact in facts:
        if not fact.alert:
            continue
        if fact.label == "env":
            names.append(fact.value.partition("=")[0])
        elif fact.label == "resolves" and INSIDE_PROJECT in fact.alert:
            words.append("runs a file of the project")
        elif fact.label == "resolves":
            words.append("runs a relative path")
        else:
            words.append(f"{fact.label} {fact.alert}")
    if names:  # the variables together, after one "sets": what a row has room for
        words.append("sets " + ", ".join(names))
    return safe_line(", ".join(words))


def _shown(fact: EntryFact) -> str:
    alert = f"  ⚠ {fact.alert}" if fact.alert else ""
    return safe_line(fact.value) + alert


def fact_lines(facts: Sequence[EntryFact], indent: str = "") -> list[str]:
    """The facts one a line, ``label  value  ⚠ alert``, labels in one column, every value made
    safe for a terminal (a newline in an argument cannot forge another fact)."""
    width = max((len(fact.label) for fact in facts), default=0)
    return [f"{indent}{fact.label:<{width}}  {_shown(fact)}" for fact in facts]


def facts_line(facts: Sequence[EntryFact]) -> str:
    """The facts on one line (a row of the picker): ``runs: … · resolves: … · env: A=…, B=…``,
    facts of one label together, every value made safe for a terminal."""
    groups: dict[str, list[str]] = {}
    for fact in facts:
        groups.setdefault(fact.label, []).append(_shown(fact))
    return " · ".join(f"{label}: {', '.join(values)}" for label, values in groups.items())


def facts_json(facts: Sequence[EntryFact]) -> list[dict[str, Any]]:
    """The facts for JSON output: ``label``, ``value`` (masked, as written) and ``alert``."""
    return [fact.model_dump(mode="json") for fact in facts]
