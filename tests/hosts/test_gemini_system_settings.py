"""Gemini CLI's system settings and system defaults (``GEMINI_CLI_SYSTEM_SETTINGS_PATH``; the
defaults beside them), asked of the real program with ``gemini mcp list``: read only from a
folder only root may change, in Gemini's precedence, their exclusions and trust switch obeyed;
and what agentty-tui makes of them agrees (docs/HOSTS_MEASURED.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.hosts.gemini_cli import LIST_LINE, GeminiHome, light_entry
from tests.root_folder import root_folder

__all__ = ["root_folder"]  # the fixture, used by name


def _system(
    folder: Path, settings: dict[str, Any], defaults: dict[str, Any] | None = None
) -> dict[str, str]:
    """Write the system files into ``folder``; the variable that points Gemini at them."""
    (folder / "settings.json").write_text(json.dumps(settings))
    if defaults is not None:
        (folder / "system-defaults.json").write_text(json.dumps(defaults))
    return {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(folder / "settings.json")}


def _listed(gemini: GeminiHome, env: dict[str, str]) -> tuple[dict[str, tuple[str, str]], str]:
    """``gemini mcp list``: each server's command and state; and what it wrote to stderr."""
    ran = gemini.run("mcp", "list", extra_env=env)
    assert ran.returncode == 0, ran.describe()
    found = (LIST_LINE.match(line.strip()) for line in ran.stderr.splitlines())
    return {m["name"]: (m["command"], m["state"]) for m in found if m}, ran.stderr


def _tools(command: str) -> str:
    """How many tools the light server of ``command`` has (which entry Gemini took)."""
    return command.split("--tools ")[1].split()[0]


def test_system_files_are_skipped_unless_only_root_may_change_them(
    gemini: GeminiHome, root_folder: Path
) -> None:
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1)}
    files = {"mcpServers": {"sys": light_entry("sys", 1)}}
    open_folder = gemini.home.parent / "etc"  # under /tmp, writable by all
    open_folder.mkdir()
    listed, said = _listed(gemini, _system(open_folder, files, files))
    assert set(listed) == {"mine"}
    assert f"Security Warning: Skipping system settings file '{open_folder}/settings.json'" in said
    assert f"Skipping system defaults file '{open_folder}/system-defaults.json'" in said
    listed, said = _listed(gemini, _system(root_folder, files))
    assert set(listed) == {"mine", "sys"} and "Security Warning" not in said
    (root_folder / "settings.json").chmod(0o666)
    listed, said = _listed(gemini, _system(root_folder, files))
    assert set(listed) == {"mine"} and "is writable by group or others" in said


def test_system_settings_win_and_system_defaults_lose_an_entry_of_the_same_name(
    gemini: GeminiHome, root_folder: Path
) -> None:
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1), "both": light_entry("both", 1)}
    gemini.workspace["mcpServers"] = {"theirs": light_entry("theirs", 1)}
    env = _system(
        root_folder,
        {"mcpServers": {"sys": light_entry("sys", 1), "both": light_entry("both", 2)}},
        {
            "mcpServers": {
                "dflt": light_entry("dflt", 1),
                "mine": light_entry("mine", 2),
                "theirs": light_entry("theirs", 2),
            }
        },
    )
    listed, _ = _listed(gemini, env)
    tools = {name: _tools(command) for name, (command, _) in listed.items()}
    assert tools == {"dflt": "1", "mine": "1", "both": "2", "theirs": "1", "sys": "1"}
    assert {state for _, state in listed.values()} == {"Connected"}


def test_system_settings_exclusions_and_folder_trust_switch_are_obeyed(
    gemini: GeminiHome, root_folder: Path
) -> None:
    gemini.user["mcpServers"] = {"mine": light_entry("mine", 1), "other": light_entry("other", 1)}
    gemini.trusted = False
    settings = {"mcp": {"excluded": ["mine"]}, "security": {"folderTrust": {"enabled": False}}}
    listed, _ = _listed(gemini, _system(root_folder, settings))
    assert {name: state for name, (_, state) in listed.items()} == {
        "mine": "Blocked",
        "other": "Connected",  # DO_NOT_TRUST, but the system settings turn folder trust off
    }


def test_a_system_file_gemini_reads_that_does_not_parse_stops_it(
    gemini: GeminiHome, root_folder: Path
) -> None:
    (root_folder / "settings.json").write_text('{"mcpServers": ')
    env = {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(root_folder / "settings.json")}
    ran = gemini.run("mcp", "list", extra_env=env)
    assert ran.returncode != 0
    assert f"Error in {root_folder}/settings.json" in ran.stderr + ran.stdout


def test_agentty_shows_a_system_server_as_gemini_runs_it_and_switches_it_off_where_gemini_obeys(
    gemini: GeminiHome, root_folder: Path
) -> None:
    gemini.user["mcpServers"] = {"both": light_entry("both", 1)}
    settings = {"mcpServers": {"sys": light_entry("sys", 1), "both": light_entry("both", 2)}}
    env = _system(root_folder, settings)
    gemini.write()
    cli_env = {"HOME": str(gemini.home), "PATH": "/usr/bin:/bin", **env}

    def agentty(*args: str) -> str:
        result = run_cli(*args, env=cli_env, whole_env=True, cwd=gemini.project)
        assert result.returncode == 0, result.stderr
        return result.stdout

    listed_json = json.loads(agentty("list", "--json"))["servers"]
    servers = {s["name"]: s for s in listed_json if "shadowed_by" not in s}
    (hidden,) = (s for s in listed_json if "shadowed_by" in s)
    assert hidden["name"] == "both" and hidden["shadowed_by"]["admin"] == "system"
    assert servers["sys"]["source"]["admin"] == "system"
    assert servers["both"]["source"]["admin"] == "system"  # the entry Gemini runs
    assert servers["sys"]["hosts"]["gemini"]["off"] is False
    agentty("disable", "sys")
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    listed, _ = _listed(gemini, env)
    assert listed["sys"][1] == "Blocked"
    agentty("enable", "sys")
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    listed, _ = _listed(gemini, env)
    assert listed["sys"][1] == "Connected"
    assert json.loads((root_folder / "settings.json").read_text()) == settings
