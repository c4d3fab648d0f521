"""The MCP servers of Gemini CLI's extensions, as the pinned version runs them, and as
``agentty-tui`` shows and switches them (docs/HOSTS_MEASURED.md, Gemini extensions).

An extension is ``~/.gemini/extensions/<folder>/gemini-extension.json``; ``mcp_list`` and
``mcp_tools_sent`` (``tests/hosts/gemini_cli``) are the judges.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.hosts.gemini_cli import GeminiHome, light_entry, sent_names
from tests.hosts.programs import light_tools

EXTENSION = "ext"


def _extension(gemini: GeminiHome, servers: dict[str, Any], folder: str = "ext-folder") -> Path:
    """Install an extension by hand, as ``gemini extensions install`` leaves one."""
    path = gemini.home / ".gemini" / "extensions" / folder / "gemini-extension.json"
    path.parent.mkdir(parents=True)
    manifest = {"name": EXTENSION, "version": "1.0.0", "mcpServers": servers}
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return path


def test_an_extension_server_keeps_its_name_and_its_entrys_tool_filter_is_obeyed(
    gemini: GeminiHome,
) -> None:
    _extension(gemini, {"lite": light_entry("lite", 3, excludeTools=["tool_0001"])})
    listed = gemini.mcp_list()
    # The list says whose it is; the name the model and mcp.excluded know is the key alone.
    assert list(listed) == [f"lite (from {EXTENSION})"]
    assert listed[f"lite (from {EXTENSION})"].state == "Connected"
    assert gemini.mcp_tools_sent() == sent_names("lite", ["tool_0000", "tool_0002"])


def test_mcp_excluded_in_the_user_settings_blocks_an_extension_server(
    gemini: GeminiHome,
) -> None:
    _extension(gemini, {"lite": light_entry("lite", 2), "kept": light_entry("kept", 1)})
    gemini.user["mcp"] = {"excluded": ["lite"]}
    states = {name: item.state for name, item in gemini.mcp_list().items()}
    assert states == {
        f"lite (from {EXTENSION})": "Blocked",
        f"kept (from {EXTENSION})": "Connected",
    }
    assert gemini.mcp_tools_sent() == sent_names("kept", light_tools(1))


def test_a_settings_entry_of_the_same_name_wins_over_the_extensions(gemini: GeminiHome) -> None:
    _extension(gemini, {"same": light_entry("extension", 2)})
    gemini.user["mcpServers"] = {"same": light_entry("settings", 1)}
    assert list(gemini.mcp_list()) == ["same"]
    assert gemini.mcp_tools_sent() == sent_names("same", light_tools(1))


def test_extensions_disable_writes_folder_rules_the_request_obeys_and_mcp_list_does_not(
    gemini: GeminiHome,
) -> None:
    _extension(gemini, {"lite": light_entry("lite", 2)})
    gemini.write()
    ran = gemini.run("extensions", "disable", EXTENSION, "--scope", "workspace", write=False)
    assert ran.returncode == 0, ran.describe()
    enablement = gemini.home / ".gemini" / "extensions" / "extension-enablement.json"
    assert json.loads(enablement.read_text()) == {
        EXTENSION: {"overrides": [f"!{gemini.project}/*"]}
    }
    assert gemini.mcp_tools_sent() == []  # off for this folder and below
    # 0.61's `mcp list` still lists (and starts) a disabled extension's server.
    assert gemini.mcp_list()[f"lite (from {EXTENSION})"].state == "Connected"
    # The user scope's rule is the home folder and below: not a project outside it.
    ran = gemini.run("extensions", "enable", EXTENSION, "--scope", "workspace", write=False)
    assert ran.returncode == 0, ran.describe()
    ran = gemini.run("extensions", "disable", EXTENSION, write=False)
    assert ran.returncode == 0, ran.describe()
    rules = json.loads(enablement.read_text())[EXTENSION]["overrides"]
    assert f"!{gemini.home}/*" in rules
    assert gemini.mcp_tools_sent() == sent_names("lite", light_tools(2))


def _agentty(gemini: GeminiHome, *args: str) -> str:
    env = {"HOME": str(gemini.home), "PATH": "/usr/bin:/bin"}
    result = run_cli(*args, env=env, whole_env=True, cwd=gemini.project)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _state(gemini: GeminiHome) -> str:
    """``lite``'s state in ``gemini mcp list`` on the settings as agentty left them."""
    gemini.user = json.loads((gemini.home / ".gemini" / "settings.json").read_text())
    return gemini.mcp_list()[f"lite (from {EXTENSION})"].state


def test_agentty_lists_an_extension_server_for_gemini_and_switches_it_where_gemini_obeys(
    gemini: GeminiHome,
) -> None:
    manifest = _extension(gemini, {"lite": light_entry("lite", 2)})
    gemini.write()
    listed = json.loads(_agentty(gemini, "list", "--json"))
    (lite,) = (s for s in listed["servers"] if s["name"] == "lite")
    assert set(lite["hosts"]) == {"gemini"}
    assert lite["hosts"]["gemini"]["off"] is False
    _agentty(gemini, "disable", "lite")
    assert _state(gemini) == "Blocked"
    _agentty(gemini, "enable", "lite")
    assert _state(gemini) == "Connected"
    assert json.loads(manifest.read_text())["mcpServers"]["lite"] == light_entry("lite", 2)


def test_a_linked_extension_runs_from_the_folder_its_link_names(gemini: GeminiHome) -> None:
    source = gemini.home.parent / "linked-source"
    source.mkdir()
    manifest = {"name": "linked", "version": "1.0.0", "mcpServers": {"lk": light_entry("lk", 1)}}
    (source / "gemini-extension.json").write_text(json.dumps(manifest))
    gemini.write()
    ran = gemini.run("extensions", "link", str(source), "--consent", write=False)
    assert ran.returncode == 0, ran.describe()
    install = gemini.home / ".gemini" / "extensions" / "linked" / ".gemini-extension-install.json"
    assert json.loads(install.read_text()) == {"source": str(source), "type": "link"}
    assert not (install.parent / "gemini-extension.json").exists()
    assert list(gemini.mcp_list()) == ["lk (from linked)"]
