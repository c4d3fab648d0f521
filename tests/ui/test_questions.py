"""questions.py: the texts of the picker's confirmations, as pure functions."""

from __future__ import annotations

from agentty_tui.model import HttpSpec, ServerState
from agentty_tui.ui.questions import remove_question, trust_config_question, trust_server_question
from tests.ui.fakes import server
from tests.ui.workspace_fakes import CLAUDE_LOCAL, OUR_USER, PROJECT_MCP, SECRET, workspace_model


def _workspace_server(name: str) -> ServerState:
    m = workspace_model()
    found = m.server(name) or next(s for s in m.shadowed if s.name == name)
    return found


def test_removing_says_which_file_and_what_stops() -> None:
    """A running process is stopped, a URL server disconnected, a server that does not run
    stops nothing; a workspace's server names its own file."""
    remote = server("remote").model_copy(update={"spec": HttpSpec(url="http://h/mcp")})
    assert remove_question(server("local")) == (
        "Remove server 'local' from the config?\nIts process is stopped."
    )
    assert remove_question(remote).endswith("\nIt is disconnected.")
    assert remove_question(server("parked", status="disabled")).endswith(
        "\nIt is not running (disabled), so nothing is stopped."
    )
    waiting = remote.model_copy(update={"status": "untrusted"})
    assert remove_question(waiting).endswith(
        "\nIt is not connected (not trusted), so nothing is stopped."
    )
    repo_tool = _workspace_server("repo-tool")
    assert remove_question(repo_tool).startswith(
        f"Remove server 'repo-tool' from {PROJECT_MCP.path}?\n"
    )


def test_removing_a_shadowed_entry_names_its_file_and_the_one_that_stays() -> None:
    hidden = next(s for s in workspace_model().shadowed if s.name == "notes")
    assert remove_question(hidden) == (
        f"Remove the entry 'notes' from {OUR_USER.path}?\n"
        f"It is shadowed by {CLAUDE_LOCAL.label} ({CLAUDE_LOCAL.path}), which stays and keeps "
        "running."
    )


def test_trusting_a_project_server_shows_its_facts_and_how_long_it_lasts() -> None:
    question = trust_server_question(_workspace_server("repo-tool"))
    assert question.startswith(f"Trust the project server 'repo-tool' of {PROJECT_MCP.path}?\n")
    assert "  env       API_KEY=••••••••" in question and SECRET not in question
    assert question.endswith("in later runs while its entry stays the same.")
    again = trust_server_question(_workspace_server("repo-tool"), changed=True)
    assert again == f"Its entry changed while you were asked; this is it now.\n\n{question}"


def test_trusting_a_server_of_a_file_others_can_write_is_for_this_run() -> None:
    weather = _workspace_server("weather").model_copy(
        update={"status": "untrusted", "error": f"{OUR_USER.path} is o+w"}
    )
    question = trust_server_question(weather)
    assert question.startswith(
        f"{OUR_USER.path} is o+w\n\nTrust 'weather' of {OUR_USER.path} for this run and start "
        "it as you?\n"
    )


def test_trusting_the_config_says_why_first() -> None:
    assert trust_config_question("mcp.json is o+w") == (
        "mcp.json is o+w\n\nTrust it for this run and start its servers as you?"
    )
