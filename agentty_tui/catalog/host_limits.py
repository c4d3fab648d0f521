"""Each host's own limits on the tools its model gets: one table, with where each figure is from.

A host sends its model only so many tools, or stops sending them whole past some size and has
the model search for them instead (deferred loading), and providers accept only names of a
certain shape. :data:`HOST_LIMITS` holds what each host does, as its documentation or source
says (checked 2026-12-02; the comments cite each figure):

============== ========== ================ ====================================== ==========
host           family     tool ceiling     deferred loading                       names
============== ========== ================ ====================================== ==========
Claude Code    Claude     none known       MCP tools past 10 % of the context     64
                                           window (20,000 of 200,000 tokens)
Claude Desktop Claude     none known       none known                             64
Cursor         OpenAI     80 (was 40)      none known                             64
Gemini CLI     Claude\\*   none known       none known                             64
Codex          OpenAI     none known       MCP tools from the 100th on            64
VS Code        OpenAI     128              none known                             64
============== ========== ================ ====================================== ==========

\\* no offline tokenizer exists for Gemini: its figure is the default family's (an estimate).

The **family** is the model family a host's tools are counted in (:mod:`.tokens`): the host's
own provider where it has one (Codex runs OpenAI models, Claude Code Claude's), else that of its
default model (VS Code's Copilot and Cursor default to OpenAI models; both let the user pick
others), else the default family. The **ceiling** is applied by the gateway per host
(``gateway.host.tools``): a host that takes at most N tools (its own built-in tools included)
gets at most N, the lowest priority trimmed first, the warning naming the host's ceiling.
Deferred loading is shown, not applied: the host still receives every tool, and decides itself.

Pure: a table and the arithmetic on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agentty_tui.catalog.names import MAX_WIRE_NAME_LENGTH
from agentty_tui.catalog.tokens import DEFAULT_FAMILY, FamilyName

__all__ = ["HOST_LIMITS", "HostLimits", "host_limits"]


@dataclass(frozen=True, slots=True)
class HostLimits:
    """What one host does with the tools its model gets."""

    host: str
    """The host's key (``sources.HOSTS``)."""
    family: FamilyName
    """The model family its tools are counted in."""
    family_estimate: bool = False
    """Whether ``family`` stands in for a family that cannot be counted offline (Gemini)."""
    tool_ceiling: int | None = None
    """The most tools (its own built-ins included) the host sends; ``None``: none known."""
    defers_from_tools: int | None = None
    """From this many MCP tools on, the host defers them (the model searches for them)."""
    defers_past_share: float | None = None
    """Past this share of ``context_window`` taken by MCP tool definitions, the host defers
    them."""
    context_window: int | None = None
    """The context window ``defers_past_share`` is a share of (the host's default model's)."""
    name_limit: int = MAX_WIRE_NAME_LENGTH
    """The longest tool name its model's provider accepts."""

    def ceiling_under(self, budget: int) -> int | None:
        """The host's tool ceiling when it is tighter than ``budget`` (the tool budget), else
        ``None``: what a list for this host is cut to, and which limit the warning names."""
        if self.tool_ceiling is None or self.tool_ceiling >= budget:
            return None
        return self.tool_ceiling

    @property
    def defers_past_tokens(self) -> int | None:
        """The tool tokens past which the host defers its MCP tools, if it does by size."""
        if self.defers_past_share is None or self.context_window is None:
            return None
        return round(self.defers_past_share * self.context_window)

    def defers(self, mcp_tools: int, mcp_tokens: int | None) -> bool:
        """Whether this host defers MCP tools that many (and, when known, that large)."""
        if self.defers_from_tools is not None and mcp_tools >= self.defers_from_tools:
            return True
        past = self.defers_past_tokens
        return past is not None and mcp_tokens is not None and mcp_tokens > past

    def rules(self) -> tuple[str, ...]:
        """The host's limits in words, one short phrase each (the lens's status bar)."""
        said: list[str] = []
        if self.tool_ceiling is not None:
            said.append(f"at most {self.tool_ceiling} tools")
        if self.defers_from_tools is not None:
            said.append(f"defers MCP tools from the {self.defers_from_tools}th")
        past = self.defers_past_tokens
        if past is not None:
            said.append(f"defers MCP tools past {past:,} tokens")
        return tuple(said)


HOST_LIMITS: Mapping[str, HostLimits] = MappingProxyType(
    {
        # Claude Code 2.1.7 and later: "tool search" defers MCP tools when their definitions
        # exceed 10 % of the context window (ENABLE_TOOL_SEARCH=auto, "auto:N" sets another
        # share): github.com/anthropics/claude-code/issues/18303 (the 10 % hardcoded since
        # 2.1.7), Claude Code's docs (code.claude.com/docs, "Costs": MCP tool search). The
        # window of its default models is 200,000 tokens. Names: Anthropic's Messages API
        # takes tool names of ^[a-zA-Z0-9_-]{1,64}$.
        "claude": HostLimits(
            host="claude",
            family="claude",
            defers_past_share=0.10,
            context_window=200_000,
        ),
        "claude-desktop": HostLimits(host="claude-desktop", family="claude"),
        # Cursor sent only the first 40 tools to its agent (docs.cursor.com, "Model Context
        # Protocol", Tool quantity; quoted in github.com/bun913/mcp-testrail/issues/6); from
        # 2025-09 its warning stands at 80 (github.com/Snowflake-Labs/mcp/issues/77).
        "cursor": HostLimits(host="cursor", family="openai", tool_ceiling=80),
        # Gemini CLI documents no ceiling; Gemini's tokenizer has no offline form.
        "gemini": HostLimits(host="gemini", family=DEFAULT_FAMILY, family_estimate=True),
        # Codex: codex-rs/core/src/mcp_tool_exposure.rs, DIRECT_MCP_TOOL_EXPOSURE_THRESHOLD =
        # 100: with its tool search on, MCP tools are deferred once there are 100 or more
        # (github.com/openai/codex). Names: OpenAI's function names are ^[a-zA-Z0-9_-]{1,64}$
        # (platform.openai.com, API reference, "function.name").
        "codex": HostLimits(host="codex", family="openai", defers_from_tools=100),
        # VS Code: "you can have up to 128 tools enabled per chat request"
        # (code.visualstudio.com/docs/copilot/agents/agent-tools; also the note in
        # github.com/postmanlabs/postman-mcp-server/pull/26). Copilot's default model is
        # OpenAI's.
        "vscode": HostLimits(host="vscode", family="openai", tool_ceiling=128),
    }
)
"""Every host with known limits, by key (``agentty``, the gateway itself, has none)."""


def host_limits(host: str | None) -> HostLimits | None:
    """``host``'s limits (``None`` for every host at once, or a host with none known)."""
    return None if host is None else HOST_LIMITS.get(host)
