"""What an entry runs or sends, as the labelled facts a trust prompt shows.

A project file comes with the repository, so everything of its entry that decides what runs or
what is sent is the repository's to choose, not only the command: its own ``env`` (``"PATH":
".bin:/usr/bin"`` makes ``npx`` the repository's ``./.bin/npx``; ``LD_PRELOAD``,
``NODE_OPTIONS``), its ``cwd``, its ``envFile``; for a URL server the URL and the headers it
sends (``Authorization: Bearer ${GITHUB_TOKEN}`` sends that variable to whoever the URL names).
``entry_facts`` lists all of it, one ``EntryFact`` each, for every place that asks the user to
trust an entry (the picker's row and its ``T`` dialog, ``agentty-tui list``, the import plan):

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
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentty_tui.model import EntryFact, HttpSpec, ServerSpec, StdioSpec
from agentty_tui.secrets import mask_keeping_references, mask_url, masked_command_line
from agentty_tui.terminal_text import safe_line

__all__ = [
    "AUTH_SCHEME_WORDS",
    "DECIDES",
    "INSIDE_PROJECT",
    "alert_summary",
    "decides_what_runs",
    "entry_facts",
    "fact_lines",
    "facts_json",
    "facts_line",
    "resolve_executable",
]

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
