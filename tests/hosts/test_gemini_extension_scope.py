"""Where Gemini CLI 0.61.0 finds extensions, asked of the program: only under the user's
``~/.gemini/extensions`` (a project's ``.gemini/extensions`` is not read), and the
``-e/--extensions`` flag of one run, which replaces the enablement rules for that run
(docs/HOSTS_MEASURED.md). agentty-tui reads the user's folder alone and cannot know the flag
of a run it does not start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import run_cli
from tests.hosts.gemini_cli import GeminiHome, light_entry, sent_names
from tests.hosts.programs import light_tools


def _extension(folder: Path, name: str, servers: dict[str, Any]) -> Path:
    """An extension ``name`` in ``folder/<name>``, as ``gemini extensions install`` leaves one."""
    path = folder / name / "gemini-extension.json"
    path.parent.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "mcpServers": servers}
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return path


def test_a_projects_extensions_folder_is_not_read(gemini: GeminiHome) -> None:
    _extension(
        gemini.project / ".gemini" / "extensions", "pext", {"plite": light_entry("plite", 1)}
    )
    _extension(gemini.home / ".gemini" / "extensions", "uext", {"ulite": light_entry("ulite", 1)})
    assert list(gemini.mcp_list()) == ["ulite (from uext)"]
    assert gemini.mcp_tools_sent() == sent_names("ulite", light_tools(1))
    ran = gemini.run("extensions", "list")
    assert ran.returncode == 0, ran.describe()
    assert "pext" not in ran.stdout + ran.stderr and "uext" in ran.stdout + ran.stderr
    # agentty-tui reads what Gemini reads: the user's extension alone.
    env = {"HOME": str(gemini.home), "PATH": "/usr/bin:/bin"}
    result = run_cli("list", "--json", env=env, whole_env=True, cwd=gemini.project)
    assert result.returncode == 0, result.stderr
    names = {s["name"] for s in json.loads(result.stdout)["servers"]}
    assert "ulite" in names and "plite" not in names


def test_the_extensions_flag_of_one_run_picks_the_extensions_it_runs(gemini: GeminiHome) -> None:
    extensions = gemini.home / ".gemini" / "extensions"
    _extension(extensions, "one", {"first": light_entry("first", 1)})
    _extension(extensions, "two", {"second": light_entry("second", 1)})
    both = sent_names("first", light_tools(1)) + sent_names("second", light_tools(1))
    assert gemini.mcp_tools_sent() == sorted(both)
    yolo = ("--approval-mode", "yolo")
    assert gemini.mcp_tools_sent("-e", "TWO", *yolo) == sent_names("second", light_tools(1))
    assert gemini.mcp_tools_sent("-e", "none", *yolo) == []
    # It replaces the enablement rules: an extension disabled for every folder runs when named.
    rules = {"one": {"overrides": ["!/*"]}}
    (extensions / "extension-enablement.json").write_text(json.dumps(rules))
    assert gemini.mcp_tools_sent() == sent_names("second", light_tools(1))
    assert gemini.mcp_tools_sent("-e", "one", *yolo) == sent_names("first", light_tools(1))
