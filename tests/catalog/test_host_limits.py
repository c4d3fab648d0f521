"""Each host's limits (``catalog/host_limits.py``): one table, and what it says of a catalog."""

from __future__ import annotations

from pathlib import Path

from agentty_tui.catalog import FAMILIES, MAX_WIRE_NAME_LENGTH
from agentty_tui.catalog.host_limits import HOST_LIMITS, host_limits
from agentty_tui.config.hosts.switches import HOST_NAMES
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


def test_the_readmes_table_says_what_the_code_says() -> None:
    """README's "Each host's limits" has a row per host of ``HOST_LIMITS``, with the same
    family, ceiling, deferral point and name limit (the one table, twice, kept alike)."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("### Each host's limits", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("host", "---"):
            rows[cells[0]] = cells
    assert set(rows) == {HOST_NAMES[host] for host in HOST_LIMITS}
    for host, limits in HOST_LIMITS.items():
        _, family, ceiling, deferred, names = rows[HOST_NAMES[host]]
        assert FAMILIES[limits.family].label in family
        assert ("estimate" in family) == (limits.family != "openai" or limits.family_estimate)
        if limits.tool_ceiling is None:
            assert ceiling == "none known"
        else:
            assert ceiling.startswith(f"{limits.tool_ceiling} tools")
        if limits.defers_from_tools is not None:
            assert f"from the {limits.defers_from_tools}th" in deferred
        elif limits.defers_past_tokens is not None:
            assert f"{limits.defers_past_tokens:,}" in deferred
        else:
            assert deferred == "none known"
        assert names.startswith(str(limits.name_limit))
