"""Claude Code's MCP server policy read from its settings (``config/hosts/claude/policy``)."""

from __future__ import annotations

from agentty_tui.config.hosts.claude.policy import policy_of
from agentty_tui.model import HttpSpec, StdioSpec

TIME = StdioSpec(command="uvx", args=("mcp-server-time",))
WEB = HttpSpec(url="https://mcp.example.com/v1/mcp")


def test_a_denial_wins_and_names_its_list() -> None:
    problems: list[str] = []
    policy = policy_of(
        [
            ("~/.claude/settings.json", {"allowedMcpServers": [{"serverName": "time"}]}, False),
            (
                ".claude/settings.json",
                {"deniedMcpServers": [{"serverUrl": "https://*.example.com/*"}]},
                False,
            ),
        ],
        problems,
    )
    assert policy.blocks("time", TIME) is None
    assert policy.blocks("web", WEB) == "deniedMcpServers in .claude/settings.json"
    # The allowlist names ``time`` alone: the same command under another name is not it.
    assert policy.blocks("other", TIME) == "not in allowedMcpServers in ~/.claude/settings.json"
    assert problems == []


def test_an_allowlist_leaves_out_what_it_does_not_name_and_an_empty_one_everything() -> None:
    named = policy_of(
        [("s", {"allowedMcpServers": [{"serverCommand": ["uvx", "mcp-server-time"]}]}, False)], []
    )
    assert named.blocks("anything", TIME) is None
    assert named.blocks("web", WEB) == "not in allowedMcpServers in s"
    empty = policy_of([("s", {"allowedMcpServers": []}, False)], [])
    assert empty.blocks("time", TIME) == "not in allowedMcpServers in s"
    assert policy_of([("s", {}, False)], []).blocks("time", TIME) is None


def test_managed_only_keeps_the_users_allowlist_out_but_not_their_denials() -> None:
    policy = policy_of(
        [
            (
                "~/.claude/settings.json",
                {
                    "allowedMcpServers": [{"serverName": "web"}],
                    "deniedMcpServers": [{"serverName": "time"}],
                },
                False,
            ),
            (
                "/etc/claude-code/managed-settings.json",
                {"allowManagedMcpServersOnly": True, "allowedMcpServers": [{"serverName": "time"}]},
                True,
            ),
        ],
        [],
    )
    assert (
        policy.blocks("web", WEB)
        == "not in allowedMcpServers in /etc/claude-code/managed-settings.json"
    )
    assert policy.blocks("time", TIME) == "deniedMcpServers in ~/.claude/settings.json"


def test_a_malformed_list_is_a_problem_not_a_crash() -> None:
    problems: list[str] = []
    policy = policy_of(
        [("s", {"deniedMcpServers": "time", "allowedMcpServers": [7, {}]}, False)], problems
    )
    assert len(problems) == 3 and all(
        line.startswith(("deniedMcpServers in s", "allowedMcpServers in s")) for line in problems
    )
    assert policy.blocks("time", TIME) == "not in allowedMcpServers in s"


def test_a_listed_command_or_url_is_the_only_way_a_server_of_that_kind_is_allowed() -> None:
    # As Claude Code picks its allowlist entries (read in its program): a stdio server's name
    # stops counting once any serverCommand is listed; a remote server's once a serverUrl is.
    allowed = [
        {"serverName": "time"},
        {"serverName": "web"},
        {"serverCommand": ["other-server"]},
    ]
    policy = policy_of([("s", {"allowedMcpServers": allowed}, False)], [])
    assert policy.blocks("time", TIME) == "not in allowedMcpServers in s"
    assert policy.blocks("x", StdioSpec(command="other-server")) is None
    assert policy.blocks("web", WEB) is None  # no serverUrl listed: by name
    with_url = policy_of(
        [
            (
                "s",
                {"allowedMcpServers": [{"serverName": "web"}, {"serverUrl": "https://a/*"}]},
                False,
            )
        ],
        [],
    )
    assert with_url.blocks("web", WEB) == "not in allowedMcpServers in s"
    assert with_url.blocks("time", TIME) == "not in allowedMcpServers in s"  # neither named
    assert with_url.blocks("a", HttpSpec(url="https://a/mcp")) is None
