"""Each server's state for a snapshot, and where a server's revision is decided.

A state is a function of its fields (docs/ARCHITECTURE.md §3): when every field but the revision
equals what the previous snapshot's state was built from, the previous object is handed out
again, revision and all; otherwise a new ``ServerState`` is built and gets a new revision. The
picker's rows and the catalog projector key their caches on ``(name, revision)``, so a toggle
costs them one server, not all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentty_tui.config.trust import TrustGate
from agentty_tui.model import (
    AdvertisedTool,
    PluginConfig,
    PluginModel,
    ServerConfig,
    ServerSpec,
    ServerState,
    ToolFilter,
    derive_tools,
)

if TYPE_CHECKING:  # the states are read without the SDK: the picker's first frame needs them
    from agentty_tui.bridge.session import ServerSession

__all__ = [
    "UNTRUSTED_ERROR",
    "ServerStates",
    "ShadowedStates",
    "opening_model",
    "plugin_model",
    "shadowed_state",
]

UNTRUSTED_ERROR = (
    "not started: the config file is not trusted (T in the picker, --trust on the command line)"
)
"""The error of a stdio server held back by an untrusted config (the file's own problem is
the model's ``config_untrusted``)."""


class ServerStates:
    """Builds the servers' states snapshot after snapshot, keeping what each was built from."""

    def __init__(self) -> None:
        self._last: dict[str, _Published] = {}

    def build(
        self,
        config: PluginConfig,
        sessions: Mapping[str, ServerSession],
        gated: Callable[[ServerConfig], bool],
    ) -> tuple[ServerState, ...]:
        """Every configured server's state now, in config order. ``sessions``: the live session
        of each server, by name; ``gated``: whether a server waits for the config's trust."""
        previous, self._last = self._last, {}
        return tuple(self._state(server, previous, sessions, gated) for server in config.servers)

    def _state(
        self,
        config: ServerConfig,
        previous: dict[str, _Published],
        sessions: Mapping[str, ServerSession],
        gated: Callable[[ServerConfig], bool],
    ) -> ServerState:
        prior = previous.get(config.name)
        session = None if config.disabled else sessions.get(config.name)
        fields, advertised = _fields_now(config, session, prior, gated)
        # One dict comparison, identity first for each value (an unchanged tool list is the
        # same tuple).
        if prior is not None and fields == prior.fields:
            published = prior
            published.advertised, published.rule = advertised, config.tools
        else:
            published = _Published(ServerState(**fields), fields, advertised, config.tools)
        self._last[config.name] = published
        return published.state


def _fields_now(
    config: ServerConfig,
    session: ServerSession | None,
    prior: _Published | None,
    gated: Callable[[ServerConfig], bool],
) -> tuple[dict[str, Any], tuple[AdvertisedTool, ...]]:
    """Every field of the server's state now but its revision, and the advertised tools its
    ``tools`` were derived from."""
    name, spec = config.name, config.spec
    if config.problem is not None:
        return _without_session(config, None, "failed", config.problem), ()
    if session is None:
        if not config.disabled and gated(config):
            why = config.untrusted or UNTRUSTED_ERROR
            return _without_session(config, spec, "untrusted", why), ()
        return _without_session(config, spec, "disabled", None), ()
    live = session.state
    advertised = live.tools
    if prior is not None and prior.advertised is advertised and prior.rule == config.tools:
        tools = prior.fields["tools"]  # the same tool list under the same filter
    else:
        tools = derive_tools(advertised, config.tools)
    fields = {
        "name": name,
        "spec": spec,
        "status": live.status,
        "error": live.error,
        "info": live.info,
        "tools": tools,
        "dropped_tools": live.dropped_tools,
        "pid": live.pid,
        "warnings": live.warnings,
        "auth": live.auth,
        "log_path": str(session.log.path),
        "source": config.source,
        "entry": config.entry,
        "also_in": config.also_in,
        "hosts": config.hosts,
        "shadowed_by": None,
        "trust_facts": (),  # started: it waits for nothing
        "priority": config.priority,
        "pins_kept_in": config.pins_kept_in,
    }
    return fields, advertised


class ShadowedStates:
    """The states of a workspace's shadowed entries, snapshot after snapshot: each the same
    object (and revision) for as long as it says the same."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, str, str], ServerState] = {}

    def build(self, shadowed: Sequence[ServerConfig]) -> tuple[ServerState, ...]:
        """The state of each of ``shadowed`` (``PluginConfig.shadowed``), in its order."""
        prior, self._last = self._last, {}
        for config in shadowed:
            where = config.source
            key = (config.name, where.path, where.scope) if where else (config.name, "", "")
            self._last[key] = shadowed_state(config, prior.get(key))
        return tuple(self._last.values())


def shadowed_state(config: ServerConfig, prior: ServerState | None) -> ServerState:
    """The state of an entry shadowed by one of the same name (``PluginConfig.shadowed``):
    ``prior`` again when it says the same, so that its revision stays."""
    by = config.shadowed_by
    error = f"shadowed by {by.label} ({by.path})" if by is not None else "shadowed"
    fields = _without_session(config, config.spec, "shadowed", error)
    fields["shadowed_by"] = by
    state = ServerState(**fields)
    return prior if prior is not None and prior.same_as(state) else state


def _without_session(
    config: ServerConfig, spec: ServerSpec | None, status: str, error: str | None
) -> dict[str, Any]:
    """The fields of a server state without a session."""
    return {
        "name": config.name,
        "spec": spec,
        "status": status,
        "error": error,
        "info": None,
        "tools": (),
        "dropped_tools": (),
        "pid": None,
        "warnings": (),
        "auth": None,
        "log_path": None,
        "source": config.source,
        "entry": config.entry,
        "also_in": config.also_in,
        "hosts": config.hosts,
        "shadowed_by": None,
        "trust_facts": config.trust_facts,
        "priority": config.priority,
        "pins_kept_in": config.pins_kept_in,
    }


@dataclass(slots=True)
class _Published:
    """A server's state in the last snapshot, the fields it was built from (every one but the
    revision), and the tool list and filter its tools came from (so that an unchanged list
    under an unchanged filter is not derived again)."""

    state: ServerState
    fields: dict[str, Any]
    advertised: tuple[AdvertisedTool, ...]
    rule: ToolFilter


def plugin_model(
    config: PluginConfig,
    servers: tuple[ServerState, ...],
    shadowed: tuple[ServerState, ...],
    *,
    config_path: str,
    config_error: str | None,
    trust: TrustGate,
    revision: int,
) -> PluginModel:
    """The snapshot of ``config`` with its servers' states ``servers`` (and ``shadowed``)."""
    return PluginModel(
        servers=servers,
        tool_budget=config.tool_budget,
        tool_token_budget=config.tool_token_budget,
        native_tools=config.native_tools or (),  # none: the catalog's defaults
        config_path=config_path,
        config_error=config_error,
        config_warnings=config.warnings,
        config_untrusted=None if trust.everything else config.insecure,
        shadowed=shadowed,
        revision=revision,
    )


def opening_model(config: PluginConfig, config_path: str, trust: TrustGate) -> PluginModel:
    """What a bridge that has just started ``config``'s servers shows, from the config alone:
    each server it starts ``connecting``, the others as its snapshots show them (disabled,
    untrusted, invalid). The picker's first frame, before the SDK is imported."""
    gated = {server.name: trust.gated(config, server) for server in config.servers}
    states = ServerStates().build(config, {}, lambda server: gated[server.name])
    servers = tuple(
        state.model_copy(update={"status": "connecting"})
        if state.status == "disabled" and not _disabled(config, state.name)
        else state
        for state in states
    )
    shadowed = ShadowedStates().build(config.shadowed)
    return plugin_model(
        config,
        servers,
        shadowed,
        config_path=config_path,
        config_error=None,
        trust=trust,
        revision=0,
    )


def _disabled(config: PluginConfig, name: str) -> bool:
    server = config.server(name)
    return server is None or server.disabled
