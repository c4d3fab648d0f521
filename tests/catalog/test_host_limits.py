"""Each host's limits (``catalog/host_limits.py``): one table, and what it says of a catalog."""

from __future__ import annotations

from agentty_tui.catalog import FAMILIES, MAX_WIRE_NAME_LENGTH
from agentty_tui.catalog.host_limits import HOST_LIMITS, host_limits
from agentty_tui.config.sources import HOSTS


def test_every_host_but_the_gateway_has_a_row_with_a_countable_family() -> None:
    assert set(HOST_LIMITS) == set(HOSTS) - {"agentty"}
    for host, limits in HOST_LIMITS.items():
        assert limits.host == host and limits.family in FAMILIES
        assert limits.name_limit == MAX_WIRE_NAME_LENGTH
    assert host_limits(None) is None and host_limits("agentty") is None


def test_the_documented_figures() -> None:
    """The figures the hosts' docs and sources give (the module's comments cite them)."""
    assert HOST_LIMITS["vscode"].tool_ceiling == 128
    assert HOST_LIMITS["cursor"].tool_ceiling == 80
    assert HOST_LIMITS["codex"].family == "openai" and HOST_LIMITS["claude"].family == "claude"
    assert HOST_LIMITS["gemini"].family_estimate


def test_deferred_loading_by_count_and_by_share_of_the_context_window() -> None:
    """Codex defers from its 100th MCP tool on; Claude Code past 10 % of a 200,000-token
    window (20,000 tokens), and cannot say so before the tokens are known."""
    codex, claude = HOST_LIMITS["codex"], HOST_LIMITS["claude"]
    assert not codex.defers(99, None) and codex.defers(100, None)
    assert claude.defers_past_tokens == 20_000
    assert not claude.defers(5_000, None)
    assert not claude.defers(10, 20_000) and claude.defers(10, 20_001)
    assert codex.rules() == ("defers MCP tools from the 100th",)
    assert HOST_LIMITS["vscode"].rules() == ("at most 128 tools",)
    assert claude.rules() == ("defers MCP tools past 20,000 tokens",)
