"""Which attached hosts share a bridge of the gateway daemon, and so each server's process.

A server connection is the entry and what the server is started from: the environment its
``${VAR}`` references are expanded from, the variables it inherits and the folder it starts in
(``bridge.inherited``). The daemon runs one process per distinct connection, shared by every
host: hosts attached for the same workspace (project or file) and trust share one bridge when
what the servers would see of their environments is the same (``sharing_key``):

- the values of every variable an entry of the workspace refers to (``${VAR}``);
- the inherited variables but ``PATH`` (``HOME``, ``LOGNAME``, ``SHELL``, ``TERM``, ``USER``);
- of ``PATH``, the program each stdio entry's command is found as: hosts add folders of their
  own to it (Codex puts its helpers first), which would otherwise keep every host apart;
- the variables that choose which files make the workspace (``XDG_CONFIG_HOME``, ``CODEX_HOME``,
  the Gemini CLI's home and trust settings...), unset taken as their default.

A server without a ``cwd`` starts in the workspace's folder (``Attachment.folder``: the
project's root, or the ``--config`` file's folder), whichever folder the host started in.

A bridge then runs its servers from the environment of the host that opened it. Only a digest
of that view is kept as the key: no value is stored apart from the bridge (and each attached
host's own attachment), logged or shown. The key depends on the config (which variables its
entries name, which commands they run): the daemon computes it again after each change of a
bridge's config, and moves a host whose key no longer matches (``daemon.process``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from agentty_tui.bridge.expand import references
from agentty_tui.bridge.inherited import INHERITED_VARIABLES
from agentty_tui.config.entry_rules import resolve_executable
from agentty_tui.model import PluginConfig, StdioSpec

__all__ = ["WORKSPACE_VARIABLES", "sharing_key"]

WORKSPACE_VARIABLES: tuple[str, ...] = (
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "CODEX_HOME",
    "APPDATA",
    "GEMINI_CLI_HOME",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "GEMINI_RESTRICTED_MODE",
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
    "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
)
"""The variables the config layer reads to find a workspace's files and trust."""

_DEFAULTS = {"XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state"}
"""What an unset variable stands for, under the home folder."""


def sharing_key(config: PluginConfig, environ: Mapping[str, str], folder: Path, home: Path) -> str:
    """A digest of what the servers of ``config`` would see of ``environ`` when started from
    ``folder``: equal for two hosts that may share the servers' processes."""
    names = {name for server in config.servers if server.spec for name in references(server.spec)}
    names |= {name for name in INHERITED_VARIABLES if name != "PATH"}
    view: dict[str, object] = {name: environ.get(name) for name in sorted(names)}
    for name in WORKSPACE_VARIABLES:
        value = environ.get(name) or None
        default = _DEFAULTS.get(name)
        view[f"workspace {name}"] = str(home / default) if value is None and default else value
    programs: dict[str, str | None] = {}
    for server in config.servers:
        if isinstance(server.spec, StdioSpec):
            found, _relative = resolve_executable(server.spec, start=folder, environ=environ)
            programs[server.name] = None if found is None else str(found)
    view["programs"] = programs
    view["folder"] = str(folder)
    text = json.dumps(view, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
