"""Every headless command end to end on real servers: ``cli.main`` in this process (``run``), and
a real ``agentty-tui`` process where the process itself is under test (``run_process``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.bridge.logs import LOG_FILE_NAME
from agentty_tui.catalog import FAMILIES, TOKEN_COUNTER
from tests.conftest import WriteConfig
from tests.helpers import each_dialect_file, free_port, run_cli, stdio_entry, write_file
from tests.servers import PLAIN_TOOLS, asking_argv, gated_argv, plain_argv, python_server_argv


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in this process (``run_cli``): status and output as a script sees."""
    return run_cli(*args, env=env)


def run_process(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``agentty-tui ARGS`` in a child process, as a script would run it."""
    return subprocess.run(
        [sys.executable, "-m", "agentty_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def config(write_config: WriteConfig) -> Path:
    return write_config(
        {
            "plain": stdio_entry(plain_argv(), tools={"exclude": ["sleep"]}),
            "gated": stdio_entry(gated_argv()),
            "broken": {"command": "agentty-no-such-command"},
        },
        toolBudget=10,
    )


def test_list_json_reports_every_server(config: Path) -> None:
    data = _json(run("list", "--json", "--config", str(config)))
    servers = {s["name"]: s for s in data["servers"]}
    assert list(servers) == ["plain", "gated", "broken"]
    assert servers["plain"]["status"] == "connected"
    assert [t["name"] for t in servers["plain"]["tools"]] == list(PLAIN_TOOLS)
    assert {t["name"]: t["enabled"] for t in servers["plain"]["tools"]}["sleep"] is False
    assert servers["broken"]["status"] == "failed"
    assert "command not found" in servers["broken"]["error"]
    # 6 natives + 3 plain + 5 gated requested against a budget of 10
    assert data["budget"] == {"limit": 10, "total": 14, "trimmed": 4, "token_limit": None}
    # Every tool's cost per family, a switched-off one's too (what switching it on would add).
    sleep = {t["name"]: t for t in servers["plain"]["tools"]}["sleep"]
    assert set(sleep["tokens"]) == set(FAMILIES) and sleep["tokens"]["openai"] > 0
    assert data["tokens"]["claude"]["request_overhead"] == 346


def _json_importing(config: Path, command_name: str = "list") -> tuple[Any, str]:
    """``agentty-tui COMMAND --json`` in a child process: its JSON, and the modules it imported
    (``-X importtime``'s lines on stderr)."""
    command = ["-X", "importtime", "-m", "agentty_tui", command_name, "--json"]
    command += ["--config", str(config)]
    result = subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    imported = "\n".join(line for line in result.stderr.splitlines() if "import time:" in line)
    return _json(result), imported


def test_list_json_counts_from_kept_counts_without_loading_the_encoding(
    config: Path, tmp_path: Path
) -> None:
    """The first run counts with the encoding and keeps its counts (``$XDG_CACHE_HOME``); the
    second gives the same counts from them and never imports the tokenizer, nor does
    ``catalog`` on the same servers; a corrupt cache file is counted past (the same counts
    again) and replaced."""
    kept = tmp_path / "cache" / "agentty" / "token-counts.bin"
    cold, cold_imports = _json_importing(config)
    assert "quicktok" in cold_imports
    assert kept.is_file()
    warm, warm_imports = _json_importing(config)
    assert "quicktok" not in warm_imports
    assert warm == cold
    catalog, catalog_imports = _json_importing(config, "catalog")
    assert "quicktok" not in catalog_imports
    assert catalog["tokens"] == cold["tokens"]
    kept.write_bytes(b"garbage" * 10)
    again, again_imports = _json_importing(config)
    assert "quicktok" in again_imports
    assert again == cold
    assert kept.read_bytes().startswith(b"agtkc")  # replaced by a good file


def test_list_text_is_readable(config: Path) -> None:
    result = run("list", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert "plain   connected   3/4 tools on" in result.stdout
    assert "[off] sleep" in result.stdout
    assert "! command not found: 'agentty-no-such-command'" in result.stdout
    assert "4 tools over the budget of 10" in result.stdout
    assert result.stderr == ""


def test_catalog_json_with_budget_override(config: Path) -> None:
    data = _json(run("catalog", "--json", "--budget", "8", "--config", str(config)))
    names = [t["name"] for t in data["tools"]]
    assert len(names) == 8
    assert names[6:] == ["mcp__plain__echo", "mcp__plain__add"]
    assert data["tools"][6]["server"] == "plain" and data["tools"][6]["tool"] == "echo"
    assert data["tools"][6]["input_schema"]["required"] == ["text"]
    assert data["budget"] == 8 and data["trimmed"] == 6
    assert {"server": "gated", "tool": "burst"} in data["trimmed_tools"]


def test_catalog_json_counts_each_tool_and_token_budget_trims(config: Path) -> None:
    """``catalog --json`` gives each wire tool its tokens per family, equal to the counter's
    count of the documented serialisation, and totals them; ``--token-budget`` trims the
    lowest-priority tools that do not fit and the warning names the token budget."""
    everything = ("--budget", "100", "--config", str(config))
    data = _json(run("catalog", "--json", *everything))
    assert len(data["tools"]) == 14
    for tool in data["tools"]:
        for family in FAMILIES:
            assert tool["tokens"][family] == TOKEN_COUNTER.count(
                tool["name"], tool["description"], tool["input_schema"], family
            )
    claude = sum(tool["tokens"]["claude"] for tool in data["tools"])
    assert data["tokens"]["claude"] == {
        "tools": claude,
        "request_overhead": 346,
        "exact": False,
        "encoding": "o200k_base",
    }
    assert data["tokens"]["openai"]["exact"] is True
    # Room for the natives and the first plain tool only.
    budget = sum(tool["tokens"]["claude"] for tool in data["tools"][:7])
    trimmed = _json(run("catalog", "--json", "--token-budget", str(budget), *everything))
    assert [tool["name"] for tool in trimmed["tools"]] == [t["name"] for t in data["tools"][:7]]
    assert trimmed["token_budget"] == budget and trimmed["tokens_over_by"] == claude - budget
    assert trimmed["warning"].startswith(
        f"{claude - budget:,} tokens over the token budget of {budget:,} — 7 MCP tools were"
    )
    text = run("catalog", *everything).stdout
    assert f"tools on the wire, {claude:,} tokens, budget" in text
    assert "tokens: Claude's, an o200k_base estimate; each request adds 346 for tool use" in text
    bad = run("catalog", "--token-budget", "-1", "--config", str(config))
    assert bad.returncode != 0 and "--token-budget must be zero or more" in bad.stderr


def test_enable_and_disable_edit_the_config(config: Path) -> None:
    result = run("disable", "plain", "echo", "--config", str(config))
    assert result.returncode == 0, result.stderr
    entry = json.loads(config.read_text())["mcpServers"]["plain"]
    assert entry["tools"]["exclude"] == ["sleep", "echo"]
    assert run("enable", "plain", "sleep", "--config", str(config)).returncode == 0
    entry = json.loads(config.read_text())["mcpServers"]["plain"]
    assert entry["tools"]["exclude"] == ["echo"]


def test_unknown_names_exit_1_and_leave_the_file(config: Path) -> None:
    before = config.read_bytes()
    unknown_server = run("disable", "nope", "echo", "--config", str(config))
    assert unknown_server.returncode == 1
    assert "no server named 'nope'" in unknown_server.stderr
    unknown_tool = run("disable", "plain", "nope", "--config", str(config))
    assert unknown_tool.returncode == 1
    assert "no tool named 'nope' on server 'plain'" in unknown_tool.stderr
    assert run("remove", "nope", "--config", str(config)).returncode == 1
    assert run("call", "plain", "nope", "--config", str(config)).returncode == 1
    assert config.read_bytes() == before


def test_call_of_an_unknown_tool_says_so_without_a_traceback(config: Path) -> None:
    result = run("call", "plain", "nope", "--config", str(config))
    assert result.returncode == 1
    assert result.stderr == "agentty-tui: no tool named 'nope' on server 'plain'\n"


def test_call_accept_defaults_answers_the_servers_form(write_config: WriteConfig) -> None:
    path = write_config({"form": stdio_entry(python_server_argv("form_server.py"))})
    result = run("call", "--accept-defaults", "form", "ask", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('accept {"age": 36, "name": "Ada"')


@pytest.mark.parametrize("era", [(), ("--legacy",)])
def test_call_offers_the_project_root_or_the_entrys_roots(
    write_config: WriteConfig, tmp_path: Path, era: tuple[str, ...]
) -> None:
    path = write_config({"ask": stdio_entry(asking_argv(*era))})
    plain = run("call", "ask", "roots", "--config", str(path))
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.strip() == tmp_path.as_uri()  # the config file's folder
    rooted = write_config({"ask": stdio_entry(asking_argv(*era), roots=["sub", "file:///srv"])})
    result = run("call", "ask", "roots", "--config", str(rooted))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [(tmp_path / "sub").as_uri(), "file:///srv"]


def test_add_and_remove(config: Path) -> None:
    argv = plain_argv("--name", "added")
    result = run("add", "extra", "--env", "TOKEN=s3cret", "--config", str(config), "--", *argv)
    assert result.returncode == 0, result.stderr
    entry = json.loads(config.read_text())["mcpServers"]["extra"]
    assert entry == {"command": argv[0], "args": argv[1:], "env": {"TOKEN": "s3cret"}}
    listed = _json(run("list", "--json", "--config", str(config)))
    extra = next(s for s in listed["servers"] if s["name"] == "extra")
    assert extra["status"] == "connected"
    assert "s3cret" not in json.dumps(listed)  # env values are masked

    web = run(
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        "Authorization: Bearer x",
        "--config",
        str(config),
    )
    assert web.returncode == 0, web.stderr
    assert json.loads(config.read_text())["mcpServers"]["web"] == {
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer x"},
    }
    assert run("remove", "extra", "--config", str(config)).returncode == 0
    assert "extra" not in json.loads(config.read_text())["mcpServers"]


def test_add_usage_errors_exit_2(config: Path) -> None:
    before = config.read_bytes()
    # A real process: argparse's own exit, as the shell sees it.
    assert run_process("add", "x", "--config", str(config)).returncode == 2
    both = run("add", "x", "--url", "http://h/mcp", "--config", str(config), "--", "cmd")
    assert both.returncode == 2 and "not both" in both.stderr
    assert run("add", "x", "--env", "NOEQUALS", "--config", str(config), "--", "c").returncode == 2
    header = ["--url", "http://h/mcp", "--header", "X-Key: sekrit\x1b[2Jmore"]
    bad_header = run("add", "x", *header, "--config", str(config))
    assert bad_header.returncode == 2
    assert bad_header.stderr.startswith("agentty-tui: --header 'X-Key': its value holds the")
    assert "sekrit" not in bad_header.stderr
    # A header without its colon is most often a pasted token: it is not echoed either.
    no_colon = run(
        "add", "x", "--url", "http://h/mcp", "--header", "Bearer sekrit2", "--config", str(config)
    )
    assert no_colon.returncode == 2
    assert no_colon.stderr == (
        "agentty-tui: header #1 is not of the form KEY:VALUE (its text is not shown)\n"
    )
    assert config.read_bytes() == before


def test_call_prints_the_result(config: Path) -> None:
    result = run("call", "plain", "add", '{"a": 2, "b": 40}', "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"
    data = _json(run("call", "plain", "echo", '{"text": "hi"}', "--json", "--config", str(config)))
    assert data["content"][0]["text"] == "hi"
    bad = run("call", "plain", "add", "[1]", "--config", str(config))
    assert bad.returncode == 2 and "JSON object" in bad.stderr


def test_config_that_does_not_parse_exits_2_naming_the_place(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n')
    for args in (["list"], ["catalog"], ["disable", "a", "t"], ["remove", "a"]):
        result = run(*args, "--config", str(path))
        assert result.returncode == 2, args
        assert f"{path}:3:" in result.stderr
    assert path.read_text().count("x") == 1


def test_config_path_resolution(tmp_path: Path) -> None:
    explicit = tmp_path / "from-env.json"
    argv = plain_argv()
    env = {"AGENTTY_CONFIG": str(explicit)}
    assert run("add", "a", "--", *argv, env=env).returncode == 0
    assert "a" in json.loads(explicit.read_text())["mcpServers"]

    xdg = tmp_path / "xdg"
    assert run("add", "b", "--", *argv, env={"XDG_CONFIG_HOME": str(xdg)}).returncode == 0
    assert "b" in json.loads((xdg / "agentty" / "mcp.json").read_text())["mcpServers"]


def test_secrets_never_reach_output_or_logs(write_config: WriteConfig, tmp_path: Path) -> None:
    secret = "sk-planted-SECRET-4242"
    env_secret = "env-planted-SECRET-7777"
    config = write_config(
        {
            "plain": stdio_entry(
                plain_argv(), env={"API_KEY": secret, "FROM_ENV": "${AGENTTY_PLANTED}"}
            ),
            "web": {
                "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": f"Bearer {secret}"},
            },
        }
    )
    env = {"AGENTTY_PLANTED": env_secret}
    outputs = [
        run(*args, "--config", str(config), env=env)
        for args in (["list"], ["list", "--json"], ["catalog"], ["catalog", "--json"])
    ]
    assert all(result.returncode == 0 for result in outputs), [r.stderr for r in outputs]
    listed = json.loads(outputs[1].stdout)
    assert listed["servers"][0]["spec"]["env"]["API_KEY"] != secret  # shown, but masked
    state = tmp_path / "state"
    logs = [p.read_text(errors="replace") for p in state.rglob("*") if p.is_file()]
    assert logs, "the run must have written its logs under XDG_STATE_HOME"
    for text in [*(r.stdout + r.stderr for r in outputs), *logs]:
        assert secret not in text
        assert env_secret not in text


def test_bad_headers_and_url_credentials_never_reach_output_or_logs(
    write_config: WriteConfig, tmp_path: Path
) -> None:
    port = free_port()  # nobody listens: the connection is refused
    config = write_config(
        {
            "pasted": {
                "url": f"http://127.0.0.1:{port}/mcp",
                "headers": {"Authorization": "Bearer sekrit\n"},
            },
            "creds": {"url": f"http://user:pw123@127.0.0.1:{port}/mcp?token=tok456&x=1"},
            "plain": stdio_entry(plain_argv()),
            # A URL as an argument (the mcp-remote pattern) is a URL shown as well.
            "remote": stdio_entry(["agentty-no-such-remote", "https://h/mcp?api_key=tok456"]),
        }
    )
    text, as_json = (run(*args, "--config", str(config)) for args in (["list"], ["list", "--json"]))
    assert text.returncode == as_json.returncode == 0, (text.stderr, as_json.stderr)
    servers = {server["name"]: server for server in json.loads(as_json.stdout)["servers"]}
    assert servers["plain"]["status"] == "connected"
    pasted, creds = servers["pasted"], servers["creds"]
    assert pasted["status"] == creds["status"] == "failed"
    assert pasted["error"] == (
        f"{config}:5: server 'pasted', field 'headers.Authorization': its value ends with a line "
        "break: was it pasted with a newline? (the value is not shown)"
    )
    masked = f"http://••••:•••••@127.0.0.1:{port}/mcp?token=••••••&x=1"
    assert creds["spec"]["url"] == masked
    assert creds["error"].startswith(f"cannot connect to {masked}: ")
    assert f"! cannot connect to {masked}: " in text.stdout
    assert servers["remote"]["spec"]["args"] == ["https://h/mcp?api_key=••••••"]
    files = [p for p in (tmp_path / "state").rglob("*") if p.is_file()]
    assert LOG_FILE_NAME in {p.name for p in files}  # the app's own log is read too
    logs = [p.read_text(errors="replace") for p in files]
    assert any("failed: cannot connect to" in log for log in logs)  # and the server's
    for output in [text.stdout, text.stderr, as_json.stdout, as_json.stderr, *logs]:
        for secret in ("sekrit", "pw123", "tok456"):
            assert secret not in output


def test_import_shows_the_plan_asks_and_never_overwrites(tmp_path: Path) -> None:
    source = tmp_path / "settings.json"
    argv = plain_argv()
    source.write_text(
        '{\n  // a Gemini CLI settings file\n  "theme": "Default",\n'
        f'  "mcpServers": {{"plain": {{"command": {json.dumps(argv[0])}, '
        f'"args": {json.dumps(argv[1:])}, "excludeTools": ["sleep"]}},\n'
        '    "same": {"command": "x"}, "clash": {"command": "from-gemini"}}\n}\n'
    )
    target = tmp_path / "mcp.json"
    target.write_text(
        json.dumps({"mcpServers": {"same": {"command": "x"}, "clash": {"command": "mine"}}})
    )
    before = target.read_bytes()

    refused = run("import", str(source), "--config", str(target))  # no terminal, no --yes
    assert refused.returncode == 2
    assert "+ plain" in refused.stdout
    assert "= same" in refused.stdout
    assert "clash" in refused.stdout
    assert target.read_bytes() == before

    done = run("import", str(source), "--yes", "--config", str(target))
    assert done.returncode == 0, done.stderr
    servers = json.loads(target.read_text())["mcpServers"]
    assert servers["plain"]["tools"] == {"exclude": ["sleep"]}
    assert servers["clash"] == {"command": "mine"}  # never overwritten
    listed = _json(run("list", "--json", "--config", str(target)))
    plain = next(s for s in listed["servers"] if s["name"] == "plain")
    assert plain["status"] == "connected"


@each_dialect_file
def test_list_disable_enable_on_each_hosts_own_file(
    tmp_path: Path, dialect: str, name: str, text: str, toggled: str
) -> None:
    """The CLI detects each host's file, lists its server live, and toggles in its spelling."""
    path = write_file(tmp_path / name, text)
    data = _json(run("list", "--json", "--config", str(path)))
    assert [(s["name"], s["status"]) for s in data["servers"]] == [("plain", "connected")]
    assert [t["name"] for t in data["servers"][0]["tools"]] == list(PLAIN_TOOLS)
    result = run("disable", "plain", "echo", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert toggled in path.read_text()
    result = run("enable", "plain", "echo", "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert "echo" not in path.read_text().replace(json.dumps(plain_argv()[1]), "")


def test_format_forces_the_dialect(tmp_path: Path) -> None:
    path = tmp_path / "servers.conf"
    argv = plain_argv()
    path.write_text(
        "# Codex-style servers\n[mcp_servers.plain]\n"
        f"command = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
    )
    result = run("disable", "plain", "echo", "--format", "codex", "--config", str(path))
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    assert text.startswith("# Codex-style servers\n")
    assert 'disabled_tools = ["echo"]' in text


def test_help_says_that_no_command_opens_the_picker() -> None:
    result = run("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "With no COMMAND, opens the picker on the config" in text


def test_list_text_tells_how_to_log_in() -> None:
    from agentty_tui.catalog import project_catalog
    from agentty_tui.cli.report import model_text
    from agentty_tui.model import PluginModel, ServerState

    state = ServerState(name="remote", status="needs_login", error="needs login: x")
    m = PluginModel(servers=(state,))
    text = model_text(m, project_catalog(m))
    assert "remote  needs_login" in text
    assert "    run: agentty-tui login remote" in text


def test_import_skips_a_name_the_rules_refuse_and_says_why(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps({"mcpServers": {"my server": {"command": "a"}, "ok": {"command": "b"}}})
    )
    target = tmp_path / "mcp.json"
    done = run("import", str(source), "--yes", "--config", str(target))
    assert done.returncode == 0, done.stderr
    assert "! my server  (not imported: its name is refused: Use up to 64 letters" in done.stdout
    assert sorted(json.loads(target.read_text())["mcpServers"]) == ["ok"]


def test_import_of_a_projects_file_adds_its_servers_disabled(tmp_path: Path) -> None:
    # A repository's .mcp.json names commands nobody vetted: copied into the user's own file
    # they would start in every project from then on, so they come parked, and say so.
    source = tmp_path / "repo" / ".mcp.json"
    source.parent.mkdir()
    source.write_text(json.dumps({"mcpServers": {"repo-tool": {"command": "./run-me"}}}))
    target = tmp_path / "mcp.json"
    done = run("import", str(source), "--yes", "--config", str(target))
    assert done.returncode == 0, done.stderr
    assert "is a project's file: its servers are added disabled" in done.stdout
    assert json.loads(target.read_text())["mcpServers"]["repo-tool"]["disabled"] is True
