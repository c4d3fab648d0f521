"""Import servers from another host's config: a pure plan, then additions only.

``plan_import(source, target)`` sorts the source's servers into those to add (absent from the
target), those already there and identical, those there but different (with a short diff that
names env and header keys but never shows their values, and masks URL credentials), and those
the source itself cannot use (an entry with a problem, e.g. a VS Code ``${input:...}``). A
name the rule book's name rule refuses (``entry_rules.name_problem``: ``my server``) is not
copied either: the line that skips it says why.
``apply_import(plan, store)`` writes the additions through ``AddServer`` (then ``SetToolFilter``
and ``SetServerDisabled`` where the source has them), one atomic edit at a time. Nothing that
exists is ever overwritten: a name taken meanwhile is refused by ``AddServer`` and reported.

**Pins travel with their servers.** A source server's pins (``tools.pin``, ``priority``) come
from wherever the source keeps them: its own file (agentty's), or agentty's pin store for a
host's file (``read_source``, keyed by the source's absolute path as ``config.pins`` keys it).
They are written wherever the target keeps them: the target's own ``tools.pin`` and
``"priority"`` (``SetToolPinned``, ``SetServerPriority``), or the pin store under the target's
path for a host's file, so the imported server is pinned as it was.
``prepare_import(found, store)`` is the picker's plan of one host file found
(``config.discover``) into one config file, as the bridge's import makes it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from agentty_tui.config.detect import dialect_by_name
from agentty_tui.config.discover import HostFile
from agentty_tui.config.engine import (
    AddServer,
    ConfigEdit,
    RemoveServer,
    SetServerDisabled,
    SetServerPriority,
    SetToolFilter,
    SetToolPinned,
)
from agentty_tui.config.entry_rules import entry_facts, fact_lines, name_problem
from agentty_tui.config.pins import (
    PinEdit,
    PinPlace,
    PinServer,
    PinStore,
    PinTool,
    holds_pins,
    with_book_pins,
)
from agentty_tui.config.store import ConfigStore
from agentty_tui.errors import AgenttyError, ConfigError
from agentty_tui.secrets import mask_url
from agentty_tui.specs import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    EntryFact,
    HttpSpec,
    PluginConfig,
    ServerConfig,
    StdioSpec,
    ToolFilter,
)
from agentty_tui.terminal_text import safe_line

__all__ = [
    "ImportDifference",
    "ImportPlan",
    "ImportResult",
    "PreparedImport",
    "apply_import",
    "disabled_additions",
    "plan_import",
    "prepare_import",
    "read_source",
    "with_notes",
]


@dataclass(frozen=True, slots=True)
class ImportDifference:
    """A server both configs have, but not alike."""

    name: str
    """The server's name in both."""
    diff: tuple[str, ...]
    """One line per field that differs, e.g. ``args: ['a'] → ['b']``; secrets never shown."""


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What importing a source config into a target would do."""

    add: tuple[ServerConfig, ...] = ()
    """Source servers the target lacks, in source order: these would be added."""
    identical: tuple[str, ...] = ()
    """Names the target already has with the same settings."""
    different: tuple[ImportDifference, ...] = ()
    """Names the target has with other settings: left as they are."""
    unusable: tuple[ServerConfig, ...] = ()
    """Source entries with a problem (their ``problem`` says why): never imported."""
    notes: tuple[str, ...] = ()
    """What an addition loses on the way (e.g. a timeout the target's format cannot hold)."""
    refused_names: tuple[tuple[str, str], ...] = ()
    """(name, why) of source servers whose name the entry rules refuse: never imported."""

    @property
    def empty(self) -> bool:
        """True when there is nothing to add."""
        return not self.add

    def describe(self, *, project: Path | None = None) -> str:
        """The plan as lines a person reads before saying yes: under each addition, what it
        would run or send (``entry_facts``: the executable its PATH resolves to, env, cwd,
        envFile; headers), secrets masked. ``project``: a folder whose executables are
        flagged (the project the command runs in)."""
        # Names and commands come from another host's file: one line each, whatever they hold.
        lines: list[str] = []
        for server in self.add:
            lines.append(f"+ {safe_line(server.name)}  {safe_line(_describe_spec(server))}")
            if server.spec is not None:
                facts = entry_facts(server.spec, env_file=server.env_file, project=project)
                if pins := _pins_text(server):
                    facts = (*facts, EntryFact(label="pinned", value=f"{pins} (carried over)"))
                # The first fact (the command line, the URL) is the line above.
                lines += fact_lines(facts[1:], indent="    ")
        for name in self.identical:
            lines.append(f"= {safe_line(name)}  (already there, identical)")
        for difference in self.different:
            name = safe_line(difference.name)
            lines.append(f"~ {name}  (already there, different; left as it is)")
            lines.extend(f"    {safe_line(line)}" for line in difference.diff)
        for server in self.unusable:
            problem = safe_line(server.problem or "")
            lines.append(f"! {safe_line(server.name)}  (not imported: {problem})")
        for name, why in self.refused_names:
            lines.append(f"! {safe_line(name)}  (not imported: its name is refused: {why})")
        lines.extend(f"note: {note}" for note in self.notes)
        if not self.add:
            lines.append("nothing to add")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What ``apply_import`` did."""

    added: tuple[str, ...] = ()
    """Servers written to the target."""
    failed: tuple[tuple[str, str], ...] = ()
    """(server, why) for additions the target refused; the target has none of them."""


def _describe_spec(server: ServerConfig) -> str:
    spec = server.spec
    if isinstance(spec, StdioSpec):
        return " ".join([spec.command, *_masked_args(spec)])
    if isinstance(spec, HttpSpec):
        return f"{mask_url(spec.url)} ({spec.transport})"
    return ""


def _masked_args(spec: StdioSpec) -> list[str]:
    """The arguments as shown: a URL among them (``mcp-remote https://…``) is masked."""
    return [mask_url(arg) for arg in spec.args]


def _masked_change(label: str, old: object, new: object) -> str:
    """One changed field, masked values on both sides; masks can hide the only difference,
    which is then said rather than showing two equal values."""
    same = " (their credentials differ)" if old == new else ""
    return f"{label}: {old!r} → {new!r}{same}"


def _keys_diff(label: str, old: object, new: object) -> list[str]:
    """Which keys of two string maps differ, without their values."""
    assert isinstance(old, dict) and isinstance(new, dict)
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    return [f"{label}: {', '.join(changed)} differ"] if changed else []


def _diff(target: ServerConfig, source: ServerConfig) -> tuple[str, ...]:
    """Lines saying how ``source`` differs from ``target`` (the one kept)."""
    if target.problem is not None:
        return (f"the existing entry is unusable: {target.problem}",)
    lines: list[str] = []
    old, new = target.spec, source.spec
    if type(old) is not type(new):
        lines.append(f"transport: {_describe_spec(target)} → {_describe_spec(source)}")
    elif isinstance(old, StdioSpec) and isinstance(new, StdioSpec):
        for field in ("command", "cwd"):
            if getattr(old, field) != getattr(new, field):
                lines.append(f"{field}: {getattr(old, field)!r} → {getattr(new, field)!r}")
        if old.args != new.args:
            lines.append(_masked_change("args", _masked_args(old), _masked_args(new)))
        lines += _keys_diff("env", dict(old.env), dict(new.env))
    elif isinstance(old, HttpSpec) and isinstance(new, HttpSpec):
        if old.url != new.url:
            lines.append(_masked_change("url", mask_url(old.url), mask_url(new.url)))
        if old.transport != new.transport:
            lines.append(f"transport: {old.transport!r} → {new.transport!r}")
        lines += _keys_diff("headers", dict(old.headers), dict(new.headers))
    if target.tools != source.tools:
        lines.append(f"tools: {_filter_text(target.tools)} → {_filter_text(source.tools)}")
    for field, label in (
        ("priority", "priority"),
        ("disabled", "disabled"),
        ("connect_timeout", "connect timeout"),
        ("request_timeout", "request timeout"),
    ):
        if getattr(target, field) != getattr(source, field):
            lines.append(f"{label}: {getattr(target, field)!r} → {getattr(source, field)!r}")
    return tuple(lines)


def _filter_text(rule: ToolFilter) -> str:
    parts = []
    if rule.include is not None:
        parts.append(f"only {list(rule.include)}")
    if rule.exclude:
        parts.append(f"off {list(rule.exclude)}")
    if rule.pin:
        parts.append(f"pinned {list(rule.pin)}")
    return ", ".join(parts) or "all on"


def _pins_text(server: ServerConfig) -> str:
    """What ``server`` pins, in words (empty: nothing): its priority, its pinned tools."""
    parts = []
    if server.priority > 0:
        parts.append(f"every tool (priority {server.priority})")
    elif server.priority < 0:
        parts.append(f"priority {server.priority}")
    if server.tools.pin:
        parts.append(", ".join(server.tools.pin))
    return "; ".join(parts)


_TIMEOUTS = (
    ("connect_timeout", "connect timeout", DEFAULT_CONNECT_TIMEOUT),
    ("request_timeout", "request timeout", DEFAULT_REQUEST_TIMEOUT),
)
"""``ServerConfig`` timeout fields: name, words, default."""


def plan_import(
    source: PluginConfig,
    target: PluginConfig,
    *,
    carried: Collection[str] = ("connect_timeout", "request_timeout"),
) -> ImportPlan:
    """Sort ``source``'s servers by what importing them into ``target`` would do. Pure.

    ``carried`` names the timeouts the target's format can hold (its dialect's
    ``timeout_fields``); a source timeout it cannot hold is named in ``notes``.
    """
    add: list[ServerConfig] = []
    identical: list[str] = []
    different: list[ImportDifference] = []
    unusable: list[ServerConfig] = []
    notes: list[str] = []
    refused: list[tuple[str, str]] = []
    for server in source.servers:
        if server.problem is not None or server.spec is None:
            unusable.append(server)
            continue
        existing = target.server(server.name)
        if existing is None:
            # The same rule as ``add``: a copied name must be one the target could be given.
            if (why := name_problem(server.name)) is not None:
                refused.append((server.name, why))
                continue
            add.append(server)
            if server.env_file_keys:
                names = ", ".join(server.env_file_keys)
                notes.append(
                    f"{server.name}: {names} from its envFile {server.env_file} are written as "
                    "${VAR} references, not values: set them in the environment"
                )
            for field, label, default in _TIMEOUTS:
                value = getattr(server, field)
                if value != default and field not in carried:
                    notes.append(
                        f"{server.name}: its {label} of {value:g} s is not carried over: the "
                        f"target's format has no such setting (the default {default:g} s applies)"
                    )
        elif _diff(existing, server):
            different.append(ImportDifference(server.name, _diff(existing, server)))
        else:
            identical.append(server.name)
    return ImportPlan(
        add=tuple(add),
        identical=tuple(identical),
        different=tuple(different),
        unusable=tuple(unusable),
        notes=tuple(notes),
        refused_names=tuple(refused),
    )


def _addition(server: ServerConfig, carried: Collection[str]) -> AddServer:
    """The ``AddServer`` of an imported server, with the timeouts the target can hold."""
    timeouts: dict[str, float | None] = {}
    for field, _, default in _TIMEOUTS:
        value = getattr(server, field)
        timeouts[field] = value if value != default and field in carried else None
    spec = server.spec
    assert spec is not None
    if server.env_file_keys and isinstance(spec, StdioSpec):
        # An env file holds secrets; the target's config file may be shared or committed.
        env = {k: "${" + k + "}" if k in server.env_file_keys else v for k, v in spec.env.items()}
        spec = StdioSpec(command=spec.command, args=spec.args, env=env, cwd=spec.cwd)
    return AddServer(
        name=server.name,
        spec=spec,
        connect_timeout=timeouts["connect_timeout"],
        request_timeout=timeouts["request_timeout"],
    )


def _pin_edits(server: ServerConfig) -> list[ConfigEdit]:
    """The edits that pin ``server`` in a file that holds pins as its source pinned it."""
    edits: list[ConfigEdit] = [
        SetToolPinned(server=server.name, tool=tool, pinned=True) for tool in server.tools.pin
    ]
    if server.priority:
        edits.append(SetServerPriority(server=server.name, priority=server.priority))
    return edits


def _kept_pins(server: ServerConfig, place: PinPlace) -> list[PinEdit]:
    """The pin store's edits that pin ``server`` of the file at ``place`` as its source did."""
    edits: list[PinEdit] = [PinTool(place, server.name, tool, True) for tool in server.tools.pin]
    if server.priority:
        edits.append(PinServer(place, server.name, server.priority))
    return edits


def _place_of(store: ConfigStore) -> PinPlace:
    """Where the pin store keys the servers of ``store``'s file (as ``Workspace.pin_place``
    keys a file named alone: its absolute path)."""
    return PinPlace(os.path.abspath(store.path))


def _user_pins() -> PinStore:
    return PinStore.of_user(Path.home(), os.environ)


def apply_import(
    plan: ImportPlan,
    store: ConfigStore,
    *,
    progress: Callable[[str], None] | None = None,
    pins: PinStore | None = None,
    place: PinPlace | None = None,
) -> ImportResult:
    """Write the plan's additions into ``store``'s file, each server as its own atomic edits.

    A server the target refuses (a name taken meanwhile, a transport the format cannot say) is
    reported in ``failed``; if a server's later edit fails after it was added, it is removed
    again, so that no server ends up with more tools on than its source had.

    An addition's pins are written where the target keeps them: its own ``tools.pin`` and
    ``priority``, or, for a host's file, the pin store ``pins`` (default: the user's) under
    ``place`` (default: the target's absolute path; a workspace passes its ``pin_place``).
    """
    added: list[str] = []
    failed: list[tuple[str, str]] = []
    own_pins = holds_pins(store)
    for server in plan.add:
        assert server.spec is not None
        try:
            store.apply(_addition(server, store.dialect.timeout_fields))
        except AgenttyError as error:
            failed.append((server.name, str(error)))
            continue
        try:
            rule = server.tools
            if rule.include is not None or rule.exclude:
                store.apply(
                    SetToolFilter(server=server.name, include=rule.include, exclude=rule.exclude)
                )
            if server.disabled:
                store.apply(SetServerDisabled(server=server.name, disabled=True))
            if own_pins:
                if edits := _pin_edits(server):
                    store.apply(edits)
            elif kept := _kept_pins(server, place or _place_of(store)):
                (pins or _user_pins()).apply(kept)
        except AgenttyError as error:
            store.apply(RemoveServer(name=server.name))
            failed.append((server.name, str(error)))
            continue
        added.append(server.name)
        if progress is not None:
            progress(server.name)
    return ImportResult(added=tuple(added), failed=tuple(failed))


def disabled_additions(plan: ImportPlan) -> ImportPlan:
    """``plan`` with every server it adds disabled: the servers of a project's file, which the
    user has not trusted, are copied parked (each starts once the user enables it), never run
    by the import itself."""
    add = tuple(server.model_copy(update={"disabled": True}) for server in plan.add)
    return dataclasses.replace(plan, add=add)


@dataclass(frozen=True, slots=True)
class PreparedImport:
    """What importing one host file into one config file would do, before it is done."""

    source: HostFile
    """The file chosen (only read)."""
    target: Path
    """The config file the servers go to."""
    plan: ImportPlan
    """``plan_import``'s plan (its additions disabled for a project's file)."""


def read_source(
    store: ConfigStore, pins: PinStore | None = None
) -> tuple[PluginConfig, tuple[str, ...]]:
    """The servers of an import's source file with their pins, and notes on what could not be
    read. A host's file cannot hold pins: the pin store ``pins`` (default: the user's) keeps
    them, under the file's absolute path; one that does not read carries none (a note says so).
    ``ConfigError`` when the source itself is refused."""
    config = store.load()
    if holds_pins(store):
        return config, ()
    try:
        book = (pins or _user_pins()).read()
    except ConfigError as error:
        return config, (f"no pins are carried over: {error}",)
    return with_book_pins(config, book, _place_of(store)), ()


def with_notes(plan: ImportPlan, notes: tuple[str, ...]) -> ImportPlan:
    """``plan`` with ``notes`` added after its own."""
    return dataclasses.replace(plan, notes=(*plan.notes, *notes)) if notes else plan


def prepare_import(
    source: HostFile, target: ConfigStore, pins: PinStore | None = None
) -> PreparedImport:
    """The plan of importing ``source``'s servers, with their pins, into ``target``'s file
    (which need not exist yet). A project's file (a folder's ``.mcp.json``) is not trusted by
    the import: its servers are planned disabled. Reads files (``pins``: the pin store, default
    the user's); ``ConfigError`` when one is refused."""
    store = ConfigStore(source.path, dialect=dialect_by_name(source.dialect))
    config, notes = read_source(store, pins)
    plan = plan_import(config, target.load(), carried=target.dialect.timeout_fields)
    plan = with_notes(disabled_additions(plan) if source.project else plan, notes)
    return PreparedImport(source, target.path, plan)
