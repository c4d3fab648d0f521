"""A static ``PluginSource`` and fixed models, for snapshot tests and fast pilot tests.

``StaticSource`` holds one model; operations record what they were asked and, where it is
simple, publish a changed model (a toggle flips ``enabled``), so the app can be driven without
any server running. Everything is deterministic: no PIDs, paths or timings.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from textual.app import App

from agentty_tui.bridge.auth import LoginUI
from agentty_tui.bridge.call_hooks import CallHooks
from agentty_tui.bridge.elicit import ServerElicitation, ServerElicitationComplete
from agentty_tui.bridge.reload_report import ReloadReport
from agentty_tui.config.discover import HostFile
from agentty_tui.config.importing import ImportPlan, ImportResult, PreparedImport
from agentty_tui.errors import OperationError, UnknownServerError
from agentty_tui.model import (
    NativeTool,
    PluginModel,
    ServerSpec,
    ServerState,
    SourceRef,
    StdioSpec,
    ToolHints,
    ToolState,
)

__all__ = [
    "StaticSource",
    "connected_model",
    "connecting_model",
    "crashed_model",
    "failed_model",
    "hinted_model",
    "over_budget_model",
    "server",
    "settle",
    "titled_model",
    "tool",
]

NATIVE = (NativeTool(name="read_file"), NativeTool(name="write_file"))
"""Two native tools, so budgets in the tests stay small."""


def tool(
    bare: str, enabled: bool = True, description: str | None = None, **schema: Any
) -> ToolState:
    """A tool; keyword arguments become required string properties of its input schema."""
    properties = {name: {"type": kind} for name, kind in schema.items()}
    input_schema = {"type": "object", "properties": properties, "required": list(properties)}
    return ToolState(
        bare=bare,
        enabled=enabled,
        description=description if description is not None else f"The {bare} tool.",
        input_schema=input_schema,
    )


def server(
    name: str, *tools: ToolState, status: str = "connected", error: str | None = None
) -> ServerState:
    """A server state with a fixed stdio spec and no PID."""
    return ServerState.model_validate(
        {
            "name": name,
            "spec": StdioSpec(command="python", args=("-m", f"demo.{name}")),
            "status": status,
            "error": error,
            "tools": tools,
        }
    )


def model(*servers: ServerState, budget: int = 128) -> PluginModel:
    """A model with the two test native tools and a fixed config path."""
    return PluginModel(
        servers=servers, tool_budget=budget, native_tools=NATIVE, config_path="mcp.json"
    )


def connecting_model() -> PluginModel:
    """Three servers, all still connecting."""
    return model(
        server("notes", status="connecting"),
        server("editor", status="connecting"),
        server("weather", status="connecting"),
    )


def hinted_model() -> PluginModel:
    """One server whose tools carry annotations (one with a hostile title), and one that runs
    only as a task."""
    hinted = [
        tool("read_page", description="Read a page.").model_copy(
            update={
                "hints": ToolHints(
                    title="Read \x1b[31m[b]a page[/b]", read_only=True, open_world=True
                )
            }
        ),
        tool("wipe_disk", description="Wipe the disk.").model_copy(
            update={"hints": ToolHints(read_only=False, destructive=True, idempotent=True)}
        ),
        tool("plain", description="No hints at all."),
        tool("research", description="A long study.").model_copy(update={"needs_tasks": True}),
    ]
    return model(server("web", *hinted))


def connected_model() -> PluginModel:
    """Two connected servers, some tools on and some off."""
    return model(
        server(
            "notes",
            tool("add_note", description="Add a note to the notebook.", text="string"),
            tool("list_notes", description="List every note."),
            tool(
                "delete_note", enabled=False, description="Delete a note by its id.", id="integer"
            ),
        ),
        server(
            "editor",
            tool("enable_toolset", description="Reveal a toolset's tools.", name="string"),
            tool("disable_toolset", enabled=False, description="Withdraw a toolset's tools."),
            tool("scene_open", description="Open a scene file in the editor.", path="string"),
        ),
    )


def failed_model() -> PluginModel:
    """One connected server and one that failed to start, with its error."""
    return model(
        server("notes", tool("add_note", description="Add a note.", text="string")),
        server(
            "broken",
            status="failed",
            error="command not found: 'no-such-server' (is it installed and on PATH?)",
        ),
        server("parked", status="disabled"),
    )


def titled_model() -> PluginModel:
    """``connected_model`` with titles on some tools (their descriptions differ)."""
    titles = {"add_note": "Add note", "scene_open": "Open scene", "enable_toolset": "Enable"}
    servers = tuple(
        state.model_copy(
            update={
                "tools": tuple(
                    t.model_copy(update={"title": titles[t.bare]}) if t.bare in titles else t
                    for t in state.tools
                )
            }
        )
        for state in connected_model().servers
    )
    return connected_model().model_copy(update={"servers": servers})


def crashed_model() -> PluginModel:
    """A connected server and one that failed after listing its tools (which it keeps)."""
    return model(
        server("notes", tool("add_note", description="Add a note.", text="string")),
        server(
            "editor",
            tool("scene_open", description="Open a scene file."),
            tool("scene_close", enabled=False, description="Close the scene."),
            status="failed",
            error="exited with status 1",
        ),
    )


def over_budget_model() -> PluginModel:
    """Budget 6 with 2 native tools: 4 MCP tools fit, the other 3 enabled ones are trimmed."""
    return model(
        server("notes", *(tool(f"note_{i}") for i in range(3))),
        server("cloud", *(tool(f"cloud_{i}", enabled=i != 1) for i in range(5))),
        budget=6,
    )


def _lens(host: str | None) -> tuple[str, ...]:
    """A call's host, recorded only when the picker narrowed it to one (its lens)."""
    return () if host is None else (host,)


class StaticSource:
    """A ``PluginSource`` over an in-memory model (no servers, no files)."""

    def __init__(self, first: PluginModel) -> None:
        self._model = first
        self._changed: anyio.Event | None = None  # made in the event loop, on first use
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.elicitation: ServerElicitation | None = None  # what the app set (set_elicitation)
        """Every operation asked for, with its arguments."""
        self.fail: Exception | None = None
        """When set, every operation raises it (after recording the call)."""
        self.reload_report: ReloadReport | None = None
        """What ``reload`` answers; by default a reload that changed nothing."""
        self.call_text: str | None = None
        """What ``call_tool`` answers; by default the tool's name and the arguments."""
        self.shown: Mapping[str, str] | None = None
        """The entry hashes the last ``trust_servers`` was given (the entries it showed)."""
        self.import_plan_given = ImportPlan()
        """The plan ``import_plan`` answers, whatever the file; by default nothing to add."""
        self._reload_listeners: list[Callable[[ReloadReport], None]] = []

    @property
    def snapshot(self) -> PluginModel:
        return self._model

    def publish(self, new: PluginModel) -> None:
        """Make ``new`` the current model and wake ``updates``."""
        self._model = new.model_copy(update={"revision": self._model.revision + 1})
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()

    async def updates(self) -> AsyncIterator[PluginModel]:
        seen: PluginModel | None = None
        while True:
            if self._model is not seen:
                seen = self._model
                yield seen
                continue
            if self._changed is None:
                self._changed = anyio.Event()
            await self._changed.wait()

    def add_targets(self) -> tuple[SourceRef, ...]:
        return ()

    def import_target(self) -> Path:
        return Path(self._model.config_path or "mcp.json")

    def config_files(self) -> tuple[Path, ...]:
        return ()

    def add_reload_listener(self, listener: Callable[[ReloadReport], None]) -> Callable[[], None]:
        self._reload_listeners.append(listener)

        def remove() -> None:
            if listener in self._reload_listeners:
                self._reload_listeners.remove(listener)

        return remove

    def outside_edit(self, report: ReloadReport) -> None:
        """Tell the reload listeners about ``report``, as an outside edit's reload would."""
        for listener in tuple(self._reload_listeners):
            listener(report)

    def _maybe_fail(self) -> None:
        if self.fail is not None:
            raise self.fail

    def _server(self, name: str) -> ServerState:
        found = self._model.server(name)
        if found is None:
            raise UnknownServerError(name)
        return found

    def _replace(self, state: ServerState) -> None:
        servers = tuple(state if s.name == state.name else s for s in self._model.servers)
        self.publish(self._model.model_copy(update={"servers": servers}))

    async def plugin_add(
        self, name: str, spec: ServerSpec, *, source: SourceRef | None = None
    ) -> PluginModel:
        self.calls.append(("plugin_add", (name, spec) if source is None else (name, spec, source)))
        self._maybe_fail()
        state = ServerState(name=name, spec=spec, status="connecting")
        self.publish(self._model.model_copy(update={"servers": (*self._model.servers, state)}))
        return self._model

    async def plugin_update(self, name: str, spec: ServerSpec) -> PluginModel:
        self.calls.append(("plugin_update", (name, spec)))
        self._maybe_fail()
        state = self._server(name)
        self._replace(state.model_copy(update={"spec": spec, "status": "connecting", "tools": ()}))
        return self._model

    async def plugin_remove(self, name: str, *, source: SourceRef | None = None) -> PluginModel:
        self.calls.append(("plugin_remove", (name,) if source is None else (name, source)))
        self._maybe_fail()
        if source is not None:  # one file's entry: a shadowed one goes, the others stay
            hidden = tuple(s for s in self._model.shadowed if (s.name, s.source) != (name, source))
            if len(hidden) != len(self._model.shadowed):
                self.publish(self._model.model_copy(update={"shadowed": hidden}))
                return self._model
        self._server(name)
        servers = tuple(s for s in self._model.servers if s.name != name)
        self.publish(self._model.model_copy(update={"servers": servers}))
        return self._model

    async def tool_set_enabled(
        self, server: str, tool: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        self.calls.append(("tool_set_enabled", (server, tool, enabled, *_lens(host))))
        self._maybe_fail()
        state = self._server(server)
        tools = tuple(
            t.model_copy(update={"enabled": enabled}) if t.bare == tool else t for t in state.tools
        )
        self._replace(state.model_copy(update={"tools": tools}))
        return self._model

    async def tool_set_pinned(self, server: str, tool: str, pinned: bool) -> PluginModel:
        self.calls.append(("tool_set_pinned", (server, tool, pinned)))
        self._maybe_fail()
        state = self._server(server)
        tools = tuple(
            t.model_copy(update={"pinned": pinned}) if t.bare == tool else t for t in state.tools
        )
        self._replace(state.model_copy(update={"tools": tools}))
        return self._model

    async def server_set_priority(self, name: str, priority: int) -> PluginModel:
        self.calls.append(("server_set_priority", (name, priority)))
        self._maybe_fail()
        self._replace(self._server(name).model_copy(update={"priority": priority}))
        return self._model

    async def tools_set_enabled(
        self, server: str, enabled: bool, *, host: str | None = None
    ) -> PluginModel:
        self.calls.append(("tools_set_enabled", (server, enabled, *_lens(host))))
        self._maybe_fail()
        state = self._server(server)
        tools = tuple(t.model_copy(update={"enabled": enabled}) for t in state.tools)
        self._replace(state.model_copy(update={"tools": tools}))
        return self._model

    async def server_set_disabled(
        self, name: str, disabled: bool, *, host: str | None = None
    ) -> PluginModel:
        self.calls.append(("server_set_disabled", (name, disabled, *_lens(host))))
        self._maybe_fail()
        state = self._server(name)
        status = "disabled" if disabled else "connecting"
        self._replace(state.model_copy(update={"status": status, "error": None, "tools": ()}))
        return self._model

    async def reload(self) -> ReloadReport:
        self.calls.append(("reload", ()))
        self._maybe_fail()
        return self.reload_report or ReloadReport(self._model)

    async def restart(self, name: str) -> PluginModel:
        self.calls.append(("restart", (name,)))
        self._maybe_fail()
        state = self._server(name)
        self._replace(state.model_copy(update={"status": "connecting", "error": None, "tools": ()}))
        return self._model

    async def trust_config(self) -> PluginModel:
        self.calls.append(("trust_config", ()))
        self._maybe_fail()
        return self._model

    async def trust_servers(
        self, names: Sequence[str] | None = None, *, shown: Mapping[str, str] | None = None
    ) -> PluginModel:
        self.calls.append(("trust_servers", (tuple(names) if names is not None else None,)))
        self.shown = shown
        self._maybe_fail()
        return self._model

    async def import_plan(self, source: HostFile) -> PreparedImport:
        self.calls.append(("import_plan", (source.path,)))
        self._maybe_fail()
        target = self.import_target()
        if target is None:
            raise OperationError("this config takes no import")
        return PreparedImport(source, target, self.import_plan_given)

    async def import_servers(self, prepared: PreparedImport) -> tuple[ImportResult, ReloadReport]:
        self.calls.append(("import_servers", (prepared.source.path,)))
        self._maybe_fail()
        added = tuple(server.name for server in prepared.plan.add)
        return ImportResult(added=added), await self.reload()

    async def logout(self, name: str) -> PluginModel:
        self.calls.append(("logout", (name,)))
        self._maybe_fail()
        return self._model

    async def login(self, name: str, ui: LoginUI) -> PluginModel:
        """Show a URL, then wait for a pasted redirect; records a cancellation."""
        self.calls.append(("login", (name,)))
        self._maybe_fail()
        ui.show_url(f"http://127.0.0.1:1/authorize?state=s&server={name}")
        try:
            pasted = await ui.pasted_redirect()
        except BaseException:
            self.calls.append(("login cancelled", (name,)))
            raise
        self.calls.append(("login pasted", (pasted,)))
        return self._model

    def set_elicitation(
        self,
        handler: ServerElicitation | None,
        completed: ServerElicitationComplete | None = None,
    ) -> None:
        self.elicitation = handler
        self.elicitation_complete = completed

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        hooks: CallHooks | None = None,
    ) -> types.CallToolResult:
        self.calls.append(("call_tool", (server, tool, arguments)))
        self._maybe_fail()
        state = self._server(server)
        if state.status != "connected":
            raise OperationError(f"server {server!r} is not connected ({state.status})")
        text = self.call_text or f"{tool} called with {arguments}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def settle(app: App[None], group: str = "operations") -> None:
    """Wait until the app's workers of ``group`` are done (never the one following updates)."""
    while workers := [w for w in app.workers if w.group == group and not w.is_finished]:
        await app.workers.wait_for_complete(workers)
