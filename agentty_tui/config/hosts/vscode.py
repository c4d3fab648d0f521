r"""VS Code's ``.vscode/mcp.json``: JSON with comments, ``servers`` instead of ``mcpServers``.

Each entry has a ``type`` (``stdio``, ``http`` or ``sse``) with ``command`` / ``args`` / ``env`` /
``envFile`` / ``cwd`` or ``url`` / ``headers``; ``inputs`` (prompted values) and every other key
stay in the file as they are. A tool turned off is written as our ``tools.exclude`` inside the
entry, and a disabled server as our ``disabled`` key: VS Code ignores keys it does not know.

VS Code variables are resolved in the parsed spec only, never in the file:
``${env:VAR}`` becomes our ``${VAR}`` (expanded from the environment at connect time),
``${userHome}`` becomes ``${HOME}``, and ``${workspaceFolder}`` the folder that holds
``.vscode``. An ``envFile`` (relative paths from that folder) is read at load time into the
spec's ``env``, under the entry's own ``env``; a reload reads it again. An entry that needs
``${input:ID}`` (a value VS Code prompts for), another VS Code variable, or an env file that
cannot be read cannot be started here: it loads with a problem naming what it needs, and the
other servers load as usual.

An ``envFile`` is read (``read_env_file``) in the format people use with it: one ``KEY=VALUE`` a
line, blank lines and ``#`` comment lines skipped, an optional ``export`` before the key. A value
may be single-quoted (taken as it is), double-quoted (``\n``, ``\t``, ``\"`` and ``\\`` are escapes)
or bare (trimmed, and cut at a `` #`` that starts a comment). Anything else is a ``ConfigError``
naming the file and line, so a typo never silently drops a variable.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentty_tui.config.documents.formats import JsoncFormat
from agentty_tui.config.engine import Adapter, ConnectionSpelling
from agentty_tui.config.files import decode_text, read_file
from agentty_tui.config.hosts.mcpjson import MCP_JSON_SPELLING, MCP_JSON_TIMEOUTS, spec_to_entry
from agentty_tui.config.oauth_hosts import oauth_entry
from agentty_tui.config.raw import map_strings, problem, server_or_problem, settings_config
from agentty_tui.config.trust import file_trust_problem
from agentty_tui.errors import ConfigError
from agentty_tui.specs import HttpSpec, PluginConfig, ServerConfig, ServerSpec, StdioSpec

__all__ = [
    "VSCODE_SERVERS_KEY",
    "EnvFile",
    "VsCodeDialect",
    "parse_env_file",
    "read_env_file",
    "vscode_entry",
]


VSCODE_SERVERS_KEY = "servers"
"""VS Code's top-level key for the server map."""

_VARIABLE = re.compile(r"\$\{([A-Za-z][A-Za-z0-9_]*)(?::([^}]*))?\}")
_OURS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def vscode_entry(spec: ServerSpec) -> dict[str, Any]:
    """The ``.vscode/mcp.json`` entry of a spec: ``type`` first, then only non-default fields."""
    if isinstance(spec, StdioSpec):
        return {"type": "stdio", **spec_to_entry(spec)}
    assert isinstance(spec, HttpSpec)
    entry: dict[str, Any] = {"type": "sse" if spec.transport == "sse" else "http", "url": spec.url}
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    if spec.oauth is not None:
        entry["oauth"] = oauth_entry(spec.oauth)
    return entry


def _input_description(document: dict[str, Any], input_id: str) -> str | None:
    inputs = document.get("inputs")
    if isinstance(inputs, list):
        for item in inputs:
            if isinstance(item, dict) and item.get("id") == input_id:
                description = item.get("description")
                return description if isinstance(description, str) else None
    return None


class VsCodeDialect(Adapter):
    """``.vscode/mcp.json``: ``{"servers": {...}, "inputs": [...]}``, comments kept."""

    name = "vscode"
    format = JsoncFormat()
    servers_key = VSCODE_SERVERS_KEY
    timeouts = MCP_JSON_TIMEOUTS
    connection = ConnectionSpelling(
        groups=MCP_JSON_SPELLING.groups, url_only=("oauth",), command_only=("envFile",)
    )
    """Our keys (with ``type`` always written), and ``envFile`` for a command server."""

    def __init__(self, workspace: str | None = None) -> None:
        """``workspace`` is what ``${workspaceFolder}`` means; by default the folder that holds
        the file's ``.vscode`` folder (or the file's own folder)."""
        self.workspace = workspace

    def _workspace(self, path: str | None) -> str | None:
        if self.workspace is not None:
            return self.workspace
        if path is None:
            return None
        folder = os.path.dirname(os.path.abspath(path))
        return os.path.dirname(folder) if os.path.basename(folder) == ".vscode" else folder

    def _server(
        self,
        name: str,
        entry: object,
        document: dict[str, Any],
        path: str | None,
        untrusted: list[str],
    ) -> ServerConfig:
        """One entry; why an env file it reads is not trusted is added to ``untrusted``."""
        if not isinstance(entry, dict):
            return server_or_problem(name, entry, path)
        needs: list[str] = []

        def collect(text: str) -> str:
            for match in _VARIABLE.finditer(text):
                needs.append(match.group(0))
            return text

        map_strings(entry, collect)
        for reference in dict.fromkeys(needs):
            match = _VARIABLE.fullmatch(reference)
            assert match is not None
            scheme, argument = match.group(1), match.group(2)
            if scheme == "input" and argument is not None:
                about = _input_description(document, argument)
                said = f" ({about})" if about else ""
                return problem(
                    f"uses {reference}, a value VS Code prompts for{said}; agentty-tui cannot "
                    "prompt for it: put the value in 'env' or use ${env:VAR} instead",
                    name=name,
                    path=path,
                )
            known = scheme == "env" or (
                argument is None and scheme in ("workspaceFolder", "userHome")
            )
            # Our own ${VAR} and ${VAR:-default} pass through to the connect-time expansion.
            ours = _OURS.fullmatch(scheme) and (argument is None or argument.startswith("-"))
            if not known and not ours:
                return problem(
                    f"uses {reference}, a VS Code variable agentty-tui cannot resolve",
                    name=name,
                    path=path,
                )
        workspace = self._workspace(path)
        if workspace is None and "${workspaceFolder}" in str(entry):
            return problem(
                "uses ${workspaceFolder}, but the file has no folder", name=name, path=path
            )

        def resolve(text: str) -> str:
            def one(match: re.Match[str]) -> str:
                scheme, argument = match.group(1), match.group(2)
                if scheme == "env" and argument is not None:
                    return "${" + argument + "}"
                if scheme == "workspaceFolder" and argument is None:
                    assert workspace is not None
                    return workspace
                if scheme == "userHome" and argument is None:
                    return "${HOME}"
                return match.group(0)

            return _VARIABLE.sub(one, text)

        resolved = map_strings(entry, resolve)
        if "envFile" not in resolved:
            return server_or_problem(name, resolved, path)
        env_file = resolved.pop("envFile")
        if not isinstance(env_file, str):
            return problem("must be a string", name=name, path=path, field="envFile")
        location = Path(os.path.expandvars(env_file))
        if not location.is_absolute() and workspace is not None:
            location = Path(workspace) / location
        try:
            env_file_read = read_env_file(location)
        except ConfigError as error:
            return problem(f"cannot read it: {error}", name=name, path=path, field="envFile")
        variables = env_file_read.variables
        if env_file_read.untrusted is not None:
            untrusted.append(env_file_read.untrusted)
        env = resolved.get("env", {})
        if isinstance(env, dict):
            # As in VS Code, the entry's own env wins over the file's.
            resolved["env"] = {**variables, **env}
        config = server_or_problem(name, resolved, path)
        from_file = tuple(key for key in variables if not isinstance(env, dict) or key not in env)
        return config.model_copy(update={"env_file": str(location), "env_file_keys": from_file})

    def validate(self, value: dict[str, Any], path: str | None) -> PluginConfig:
        """Validate ``servers``; one entry's problem never stops the others from loading."""
        servers = value.get(VSCODE_SERVERS_KEY, {})
        if not isinstance(servers, dict):
            raise ConfigError(
                "must be an object mapping server names to entries",
                path=path,
                field=VSCODE_SERVERS_KEY,
            )
        untrusted: list[str] = []
        configs = tuple(
            self._server(str(name), entry, value, path, untrusted)
            for name, entry in servers.items()
        )
        config = settings_config(value, configs, path)
        if untrusted:
            # The store replaces this with the config file's own problem, if it has one.
            config = config.model_copy(update={"insecure": untrusted[0]})
        return config

    def new_entry(self, spec: ServerSpec) -> Any:
        """``vscode_entry``."""
        return vscode_entry(spec)


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
    untrusted: str | None = None
    """Why the file is not trusted (others can change it): the variables decide what the
    commands using them do (``PATH``, ``LD_PRELOAD``), as the config's own ``env`` does."""


def read_env_file(path: Path) -> EnvFile:
    """The env file at ``path``; ``ConfigError`` when it cannot be read."""
    read = read_file(path)
    if read is None:
        raise ConfigError("no such file", path=str(path))
    variables = parse_env_file(decode_text(read.data, str(path)), str(path))
    return EnvFile(variables, file_trust_problem(str(path), read.mode, read.uid))
