"""One config out of a workspace's files: precedence, shadowing and de-duplication.

``layer`` takes each source's config in precedence order (local, project, user: the order of
``sources.workspace_sources``) and gives the one config the bridge runs:

- the first entry of a name wins; every entry is stamped with the file it came from
  (``ServerConfig.source``), which is where its edits go;
- a later entry of the same name with the same connection (``connection_key``) is the same
  server written into several hosts' files: it is started once, and the winner lists the other
  files in ``also_in``; if any of the copies is trusted, the server is (the user already runs it);
- a later entry of the same name with another connection is shadowed: it is listed in
  ``PluginConfig.shadowed`` with ``shadowed_by`` and never started.

The catalog settings (tool budget, native tools) come from our own user file alone; warnings
come from every file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agentty_tui.model import EntryFact, PluginConfig, ServerConfig, SourceRef

__all__ = ["Layer", "layer"]


@dataclass(frozen=True, slots=True)
class Layer:
    """One source file's part of a workspace, ready to be layered."""

    ref: SourceRef
    """The file."""
    config: PluginConfig
    """What it holds (an empty config for a file that is absent)."""
    untrusted: dict[str, str]
    """Entries of this file that wait for the user's trust, by name, each with why."""
    facts: Mapping[str, tuple[EntryFact, ...]] = field(default_factory=dict)
    """What trusting each of those entries runs or sends (``entry_facts``), by name."""


def _stamped(server: ServerConfig, part: Layer) -> ServerConfig:
    name = server.name
    return server.model_copy(
        update={
            "source": part.ref,
            "untrusted": part.untrusted.get(name),
            "trust_facts": part.facts.get(name, ()) if name in part.untrusted else (),
        }
    )


def layer(
    parts: Sequence[Layer], *, settings: PluginConfig, warnings: Sequence[str] = ()
) -> PluginConfig:
    """The workspace's config: ``parts`` in precedence order, the catalog settings of
    ``settings`` (our user file's), the warnings of every part and ``warnings`` (one line
    each, for the files that could not be read)."""
    winners: dict[str, ServerConfig] = {}
    shadowed: list[ServerConfig] = []
    for part in parts:
        for entry in part.config.servers:
            server = _stamped(entry, part)
            first = winners.get(server.name)
            if first is None:
                winners[server.name] = server
            elif first.spec is not None and first.connection_key() == server.connection_key():
                winners[server.name] = first.model_copy(
                    update={
                        "also_in": (*first.also_in, part.ref),
                        "untrusted": first.untrusted if server.untrusted else None,
                        "trust_facts": first.trust_facts if server.untrusted else (),
                    }
                )
            else:
                # Never started: there is nothing to trust it to run.
                update = {"shadowed_by": first.source, "trust_facts": ()}
                shadowed.append(server.model_copy(update=update))
    every_warning = [warning for part in parts for warning in part.config.warnings]
    return PluginConfig(
        servers=tuple(winners.values()),
        tool_budget=settings.tool_budget,
        native_tools=settings.native_tools,
        warnings=(*every_warning, *warnings),
        shadowed=tuple(shadowed),
    )
