"""On-disk shape of a config (ours: ``mcpServers``), validated into the model's ``PluginConfig``.

A server entry (ours: ``mcpServers``) is validated into ``ServerConfig``. The raw models mirror the
file (camelCase keys, ``type`` strings) and allow unknown keys: those stay in the file untouched and
the model simply ignores them. Validation is strict (no ``"true"`` for a boolean, no number for a
string), and every failure becomes a ``ConfigError`` that names the file, the server and the field a
user has to fix.

The top-level settings (our ``toolBudget``, ``toolTokenBudget`` and ``nativeTools`` keys) are
read the same way by every dialect (``settings_config``), as are the string lists many dialects'
entries hold.

The dialects that resolve variables (Gemini, VS Code) share ``map_strings`` and ``problem``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentty_tui.config.entry_rules import (
    MAX_ROOTS,
    env_name_problem,
    header_problem,
    process_text_problem,
    root_uri,
    url_problem,
    url_transport,
)
from agentty_tui.config.oauth_hosts import split_scopes
from agentty_tui.errors import ConfigError
from agentty_tui.specs import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULT_TOOL_BUDGET,
    HttpSpec,
    NativeTool,
    OAuthSettings,
    PluginConfig,
    ServerConfig,
    ServerSpec,
    StdioSpec,
    ToolFilter,
)

__all__ = [
    "RawBase",
    "RawNativeTool",
    "RawOAuth",
    "RawServer",
    "RawToolFilter",
    "json_type",
    "map_strings",
    "problem",
    "schema_error",
    "server_or_problem",
    "settings_config",
    "str_list",
    "validate_server",
]


TransportType = Literal["stdio", "http", "streamable-http", "sse"]
"""Values the ``type`` key of a server entry may take."""


class RawBase(BaseModel):
    """Base of the raw shapes: unknown keys allowed, strict types, frozen."""

    # extra="allow": unknown keys are the user's business and survive every edit.
    # strict=True: a config that says "true" where a boolean belongs is a mistake worth naming.
    model_config = ConfigDict(extra="allow", strict=True, frozen=True)


class RawToolFilter(RawBase):
    """The ``tools`` object of a server entry."""

    include: list[str] | None = None
    """Allow-list of bare tool names."""
    exclude: list[str] = Field(default_factory=list)
    """Deny-list of bare tool names."""
    pin: list[str] = Field(default_factory=list)
    """Pinned tools: trimmed only after every tool that is not."""


class RawOAuth(RawBase):
    """The ``oauth`` object of a URL server entry."""

    client_id: str | None = Field(default=None, alias="clientId", min_length=1)
    """A pre-registered client's id."""
    client_secret: str | None = Field(default=None, alias="clientSecret")
    """Its secret (write ``${VAR}`` to keep it out of the file)."""
    scopes: list[str] | None = None
    """Scopes to request."""
    callback_port: int | None = Field(default=None, alias="callbackPort", ge=1, le=65535)
    """Fixed loopback port of the redirect URI."""
    client_metadata_url: str | None = Field(default=None, alias="clientMetadataUrl")
    """URL of a Client ID Metadata Document."""

    @field_validator("scopes", mode="before")
    @classmethod
    def _scope_string(cls, value: object) -> object:
        """Claude Code writes the scopes as one space-separated string."""
        return split_scopes(value)

    @field_validator("client_metadata_url")
    @classmethod
    def _document_url(cls, value: str | None) -> str | None:
        """The URL is the client id: the spec wants HTTPS and a path."""
        parts = urlsplit(value) if value is not None else None
        if parts is not None and (parts.scheme != "https" or parts.path in ("", "/")):
            raise ValueError("must be an https:// URL with a path (a Client ID Metadata Document)")
        return value

    def settings(self) -> OAuthSettings:
        """The model value."""
        return OAuthSettings(
            client_id=self.client_id,
            client_secret=self.client_secret,
            scopes=None if self.scopes is None else tuple(self.scopes),
            callback_port=self.callback_port,
            client_metadata_url=self.client_metadata_url,
        )


class RawServer(RawBase):
    """One entry of ``mcpServers`` as written on disk (both transports' fields in one shape)."""

    command: str | None = Field(default=None, min_length=1)
    """Executable of a stdio server."""
    args: list[str] = Field(default_factory=list)
    """Arguments of a stdio server."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment of a stdio server."""
    cwd: str | None = None
    """Working directory of a stdio server."""
    url: str | None = Field(default=None, min_length=1)
    """Endpoint of an HTTP server."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Request headers of an HTTP server."""
    transport_type: TransportType | None = Field(default=None, alias="type")
    """Explicit transport; inferred from ``command`` / ``url`` when absent."""
    disabled: bool = False
    """Kept in the file but not started."""
    tools: RawToolFilter = Field(default_factory=RawToolFilter)
    """Which tools are on (and which are pinned)."""
    priority: int = 0
    """Where its tools rank on the wire: higher first; above 0 all of them are pinned."""
    connect_timeout: float = Field(default=DEFAULT_CONNECT_TIMEOUT, alias="connectTimeout", gt=0)
    """Seconds until the server must have listed its tools."""
    request_timeout: float = Field(default=DEFAULT_REQUEST_TIMEOUT, alias="requestTimeout", gt=0)
    """Seconds any one request may take."""
    max_response_bytes: int = Field(
        default=DEFAULT_MAX_RESPONSE_BYTES, alias="maxResponseBytes", gt=0, strict=True
    )
    """The largest HTTP response (or server-sent event) an HTTP server may send."""
    oauth: RawOAuth | None = None
    """OAuth login settings of a URL server."""
    roots: list[str] | None = None
    """The roots the server is offered: folders (relative ones against the file's folder) or
    ``file://`` URIs; absent: the project's root."""


def _loc_text(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as ``args[0]`` / ``tools.exclude[1]`` / ``env.TZ``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def schema_error(
    error: ValidationError,
    *,
    path: str | None,
    server: str | None,
    prefix: tuple[int | str, ...] = (),
) -> ConfigError:
    """Turn the first problem pydantic found into a ``ConfigError`` naming server and field."""
    problems = error.errors(include_url=False)
    first = problems[0]
    loc = (*prefix, *first["loc"])
    field = str(loc[0]) if loc else None
    message = first["msg"]
    if len(loc) > 1:
        message += f" (at {_loc_text(loc)})"
    if len(problems) > 1:
        more = len(problems) - 1
        message += f"; and {more} more problem{'s' if more > 1 else ''}"
    return ConfigError(message, path=path, server=server, field=field)


def _spec(raw: RawServer, name: str, path: str | None) -> ServerSpec:
    """Pick the transport of one entry; fields of the other transport are rejected by name."""
    if raw.command is not None and raw.url is not None:
        raise ConfigError(
            "has both 'command' and 'url'; a server is either run (command) or remote (url)",
            path=path,
            server=name,
        )
    if raw.command is None and raw.url is None:
        raise ConfigError(
            "has neither 'command' nor 'url'; give a command to run or a url to connect to",
            path=path,
            server=name,
        )
    kind = raw.transport_type
    if raw.command is not None:
        if kind not in (None, "stdio"):
            raise ConfigError(
                f"type {kind!r} needs a 'url', but this entry has a 'command'",
                path=path,
                server=name,
                field="type",
            )
        if raw.headers:
            raise ConfigError(
                "'headers' belong to a url server", path=path, server=name, field="headers"
            )
        if raw.oauth is not None:
            raise ConfigError(
                "'oauth' belongs to a url server", path=path, server=name, field="oauth"
            )
        _check_process_text(raw, name, path)
        return StdioSpec(command=raw.command, args=tuple(raw.args), env=raw.env, cwd=raw.cwd)
    assert raw.url is not None  # narrowed by the checks above
    if kind == "stdio":
        raise ConfigError(
            "type 'stdio' needs a 'command', but this entry has a 'url'",
            path=path,
            server=name,
            field="type",
        )
    # Empty leftovers (``"args": []``) harm nothing; real values of the other transport would
    # be silently ignored, so they are named instead.
    for field, value in (("args", raw.args), ("env", raw.env), ("cwd", raw.cwd)):
        if value:
            raise ConfigError(
                f"{field!r} belongs to a command server", path=path, server=name, field=field
            )
    if (problem := url_problem(raw.url)) is not None:
        raise ConfigError(problem, path=path, server=name, field="url")
    for header, value in raw.headers.items():
        if (why := header_problem(header, value)) is not None:
            raise ConfigError(why, path=path, server=name, field=f"headers.{header}")
    return HttpSpec(
        url=raw.url,
        headers=raw.headers,
        transport=url_transport(raw.url, kind),
        oauth=None if raw.oauth is None else raw.oauth.settings(),
    )


def _check_process_text(raw: RawServer, name: str, path: str | None) -> None:
    """Refuse, naming the field, what no process can be started with (a NUL, a lone surrogate,
    an env name with ``=``): found at load, not as a bare ``ValueError`` at the spawn."""
    texts = [("command", raw.command or ""), *((f"args[{i}]", a) for i, a in enumerate(raw.args))]
    texts += [(f"env.{key}", value) for key, value in raw.env.items()]
    if raw.cwd is not None:
        texts.append(("cwd", raw.cwd))
    for key in raw.env:
        if (why := env_name_problem(key)) is not None:
            raise ConfigError(why, path=path, server=name, field="env")
    for field, text in texts:
        if (why := process_text_problem(text)) is not None:
            raise ConfigError(why, path=path, server=name, field=field)


def validate_server(name: str, entry: object, *, path: str | None = None) -> ServerConfig:
    """Validate one ``mcpServers`` entry into a ``ServerConfig``; raise ``ConfigError`` if bad."""
    if not name:
        raise ConfigError("server names must not be empty", path=path)
    if not isinstance(entry, Mapping):
        raise ConfigError(f"must be an object, not {json_type(entry)}", path=path, server=name)
    try:
        raw = RawServer.model_validate(dict(entry))
    except ValidationError as error:
        raise schema_error(error, path=path, server=name) from None
    return ServerConfig(
        name=name,
        spec=_spec(raw, name, path),
        disabled=raw.disabled,
        tools=ToolFilter(
            include=None if raw.tools.include is None else tuple(raw.tools.include),
            exclude=tuple(raw.tools.exclude),
            pin=tuple(raw.tools.pin),
        ),
        priority=raw.priority,
        connect_timeout=raw.connect_timeout,
        request_timeout=raw.request_timeout,
        max_response_bytes=raw.max_response_bytes,
        roots=_roots(raw.roots, name, path),
    )


def _roots(values: list[str] | None, name: str, path: str | None) -> tuple[str, ...] | None:
    """The entry's ``roots`` as absolute ``file://`` URIs, each once, relative paths against
    the folder of ``path`` (the current folder for a config of no file)."""
    if values is None:
        return None
    if len(values) > MAX_ROOTS:
        raise ConfigError(
            f"has {len(values)} roots; at most {MAX_ROOTS}", path=path, server=name, field="roots"
        )
    folder = Path(path).absolute().parent if path is not None else Path.cwd()
    found: list[str] = []
    for index, value in enumerate(values):
        try:
            uri = root_uri(value, folder)
        except ValueError as error:
            raise ConfigError(str(error), path=path, server=name, field=f"roots[{index}]") from None
        if uri not in found:
            found.append(uri)
    return tuple(found)


def server_or_problem(name: str, entry: object, path: str | None) -> ServerConfig:
    """One entry; an invalid one becomes a ``ServerConfig`` that carries its problem, so that
    the other servers still load and the invalid one is shown with what is wrong."""
    try:
        return validate_server(name, entry, path=path)
    except ConfigError as error:
        return ServerConfig(name=name, problem=str(error))


def json_type(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


class RawNativeTool(RawBase):
    """One entry of ``nativeTools``."""

    name: str = Field(min_length=1)
    """Wire name of the host tool."""
    description: str = ""
    """What the model reads about it."""
    input_schema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"}, alias="inputSchema"
    )
    """JSON Schema of its arguments."""


def _native_tools(value: object, path: str | None) -> tuple[NativeTool, ...] | None:
    """Validate ``nativeTools``: absent or null means the host's built-in list."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ConfigError(
            f"must be an array of tools, not {json_type(value)}", path=path, field="nativeTools"
        )
    tools = []
    for index, item in enumerate(value):
        try:
            raw = RawNativeTool.model_validate(item)
        except ValidationError as error:
            raise schema_error(
                error, path=path, server=None, prefix=("nativeTools", index)
            ) from None
        tools.append(
            NativeTool(name=raw.name, description=raw.description, input_schema=raw.input_schema)
        )
    return tuple(tools)


def settings_config(
    document: Mapping[str, Any], servers: tuple[ServerConfig, ...], path: str | None
) -> PluginConfig:
    """A config of ``servers`` plus our own top-level ``toolBudget`` / ``toolTokenBudget`` /
    ``nativeTools`` keys, which every dialect reads the same way."""
    budget = document.get("toolBudget", DEFAULT_TOOL_BUDGET)
    # bool is an int subclass in Python; `true` is not a budget.
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ConfigError(
            f"must be a non-negative integer, not {budget!r}", path=path, field="toolBudget"
        )
    token_budget = document.get("toolTokenBudget")
    if token_budget is not None and (
        isinstance(token_budget, bool) or not isinstance(token_budget, int) or token_budget < 0
    ):
        raise ConfigError(
            f"must be a non-negative integer, not {token_budget!r}",
            path=path,
            field="toolTokenBudget",
        )
    return PluginConfig(
        servers=servers,
        tool_budget=budget,
        tool_token_budget=token_budget,
        native_tools=_native_tools(document.get("nativeTools"), path),
    )


def str_list(value: object, *, name: str, field: str, path: str | None) -> list[str] | None:
    """``value`` as a list of strings (``None`` when absent); ``ConfigError`` otherwise."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError("must be an array of strings", path=path, server=name, field=field)
    return list(value)


def problem(message: str, *, name: str, path: str | None, field: str | None = None) -> ServerConfig:
    """An entry that cannot be used, carrying why (file, server and field named)."""
    error = ConfigError(message, path=path, server=name, field=field)
    return ServerConfig(name=name, problem=str(error))


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string in it (keys stay)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    return value
