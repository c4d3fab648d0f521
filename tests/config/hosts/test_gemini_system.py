"""Gemini CLI's system settings and defaults, read as Gemini reads them: only files that pass
its security check, the folder trust switch merged from the system files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config.hosts.gemini_system import (
    SYSTEM_SETTINGS,
    gemini_system_paths,
    read_gemini_system,
    system_file_insecure,
)
from agentty_tui.config.hosts.gemini_trust import gemini_folder_untrusted
from tests.root_folder import root_folder

__all__ = ["root_folder"]  # the fixture, used by name

ENTRY = {"command": "sys-server", "args": ["-x"]}


def _env(folder: Path) -> dict[str, str]:
    return {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(folder / "settings.json")}


def test_the_paths_follow_geminis_variables(tmp_path: Path) -> None:
    assert gemini_system_paths({}) == (
        SYSTEM_SETTINGS,
        SYSTEM_SETTINGS.parent / "system-defaults.json",
    )
    moved = gemini_system_paths(_env(tmp_path))
    assert moved == (tmp_path / "settings.json", tmp_path / "system-defaults.json")
    both = {**_env(tmp_path), "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(tmp_path / "d.json")}
    assert gemini_system_paths(both)[1] == tmp_path / "d.json"


def test_a_file_under_tmp_is_skipped_as_gemini_skips_it(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"mcpServers": {"sys": ENTRY}}))
    why = system_file_insecure(tmp_path / "settings.json")
    assert why is not None and why.startswith("Parent directory '")
    assert "is insecure: " in why
    system = read_gemini_system(_env(tmp_path))
    assert system.system.part is None and system.system.settings is None
    assert system.problems == (
        f"Gemini CLI skips its system settings {tmp_path / 'settings.json'}: {why}",
    )
    assert system.defaults.problem is None  # absent: nothing to say
    assert system_file_insecure(tmp_path / "absent.json") is None


def test_a_file_in_a_root_folder_is_read_with_its_servers(root_folder: Path) -> None:
    settings = {"mcpServers": {"sys": ENTRY}, "mcp": {"excluded": ["x"]}}
    (root_folder / "settings.json").write_text("// the admin's\n" + json.dumps(settings))
    (root_folder / "system-defaults.json").write_text(json.dumps({"mcpServers": {}}))
    system = read_gemini_system(_env(root_folder))
    assert system.problems == ()
    assert system.system.settings is not None and system.system.settings["mcp"] == {
        "excluded": ["x"]
    }
    assert system.system.part is not None
    source, config = system.system.part
    assert source.ref.admin == "system" and source.ref.host == "gemini"
    assert source.ref.label == "gemini · system"
    assert [s.name for s in config.servers] == ["sys"]
    assert (
        system.defaults.part is not None and system.defaults.part[0].ref.admin == "system defaults"
    )


@pytest.mark.parametrize(
    ("mode", "why"),
    [(0o664, "File is insecure: File '{path}' is writable by group or others (mode: 100664)")],
)
def test_a_file_others_may_write_is_skipped(root_folder: Path, mode: int, why: str) -> None:
    path = root_folder / "settings.json"
    path.write_text("{}")
    path.chmod(mode)
    assert system_file_insecure(path) == why.format(path=path)
    folder = root_folder / "open"
    folder.mkdir()
    folder.chmod(0o777)
    (folder / "settings.json").write_text("{}")
    found = system_file_insecure(folder / "settings.json")
    assert found is not None and found.startswith(f"Parent directory '{folder}' is insecure")


def test_a_link_is_checked_where_it_leads(root_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("{}")
    (root_folder / "settings.json").symlink_to(tmp_path / "real.json")
    found = system_file_insecure(root_folder / "settings.json")
    assert found is not None and found.startswith("Resolved target parent directory")


def test_a_file_read_that_does_not_parse_stops_gemini(root_folder: Path) -> None:
    (root_folder / "settings.json").write_text('{"mcpServers": ')
    system = read_gemini_system(_env(root_folder))
    assert system.system.part is None
    assert system.system.problem is not None
    assert system.system.problem.startswith(
        f"Gemini CLI stops on its system settings {root_folder}"
    )


def test_the_folder_trust_switch_is_merged_from_the_system_files(tmp_path: Path) -> None:
    user, folders = tmp_path / "settings.json", tmp_path / "trustedFolders.json"
    off = {"security": {"folderTrust": {"enabled": False}}}
    on = {"security": {"folderTrust": {"enabled": True}}}
    user.write_text("{}")

    def untrusted(
        system: Mapping[str, Any] | None = None, defaults: Mapping[str, Any] | None = None
    ) -> bool:
        found = gemini_folder_untrusted(
            folders, user, tmp_path, {}, system=system, defaults=defaults
        )
        return found is not None

    assert untrusted()  # no rule for the folder
    assert not untrusted(system=off)
    assert not untrusted(defaults=off)  # nothing over the defaults sets it
    user.write_text(json.dumps(on))
    assert untrusted(defaults=off)  # the user's over the defaults
    assert not untrusted(defaults=off, system=off)
    user.write_text(json.dumps(off))
    assert untrusted(system=on)  # the system settings over the user's
