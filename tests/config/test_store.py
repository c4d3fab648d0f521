"""The store: atomic, format-keeping, never-clobbering writes of config edits."""

from __future__ import annotations

import fcntl
import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from agentty_tui.config import (
    AddServer,
    ConfigEdit,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
)
from agentty_tui.config.locking import lock_path
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, PluginConfig, StdioSpec

ORIGINAL: dict[str, Any] = {
    "$schema": "https://example.invalid/schema.json",
    "toolBudget": 50,
    "mcpServers": {
        "time": {
            "command": "mcp-server-time",
            "args": ["--local-timezone", "UTC"],
            "alwaysAllow": ["get_time"],
            "tools": {"exclude": ["convert_time"], "comment": "keep me"},
            "env": {"TZ": "UTC"},
        },
        "remote": {"url": "http://127.0.0.1:8000/mcp", "x-note": {"b": 1, "a": 2}},
    },
    "zLast": {"nested": [1, {"k": "v"}]},
}


def _write(path: Path, document: object, indent: int | str | None = 2) -> None:
    path.write_text(json.dumps(document, indent=indent) + "\n")


def _read(path: Path) -> Any:
    return json.loads(path.read_text())


def _keys(value: Any) -> Any:
    """Every key of a JSON value in order, recursively (to compare key order exactly)."""
    if isinstance(value, dict):
        return [(key, _keys(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_keys(item) for item in value]
    return None


EDITS: list[tuple[ConfigEdit, dict[str, Any]]] = [
    (
        AddServer("new", StdioSpec(command="c", args=("-v",))),
        {"mcpServers": {**ORIGINAL["mcpServers"], "new": {"command": "c", "args": ["-v"]}}},
    ),
    (
        RemoveServer("remote"),
        {"mcpServers": {"time": ORIGINAL["mcpServers"]["time"]}},
    ),
    (
        SetToolEnabled("time", "get_time", False),
        {
            "mcpServers": {
                **ORIGINAL["mcpServers"],
                "time": {
                    **ORIGINAL["mcpServers"]["time"],
                    "tools": {"exclude": ["convert_time", "get_time"], "comment": "keep me"},
                },
            }
        },
    ),
    (
        SetToolEnabled("time", "convert_time", True),
        {
            "mcpServers": {
                **ORIGINAL["mcpServers"],
                "time": {**ORIGINAL["mcpServers"]["time"], "tools": {"comment": "keep me"}},
            }
        },
    ),
    (
        SetServerDisabled("remote", True),
        {
            "mcpServers": {
                **ORIGINAL["mcpServers"],
                "remote": {**ORIGINAL["mcpServers"]["remote"], "disabled": True},
            }
        },
    ),
]


@pytest.mark.parametrize(("edit", "changed"), EDITS)
def test_each_edit_changes_only_what_it_owns(
    tmp_path: Path, edit: ConfigEdit, changed: dict[str, Any]
) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    config = ConfigStore(path).apply(edit)

    expected = {**ORIGINAL, **changed}
    on_disk = _read(path)
    assert on_disk == expected
    assert _keys(on_disk) == _keys(expected)  # order of every key, unknown ones included
    assert config == ConfigStore(path).load()
    assert config.tool_budget == 50


def test_returned_config_reflects_each_edit(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)

    config = store.apply(SetToolEnabled("time", "get_time", False))
    time = config.server("time")
    assert time is not None
    assert time.tools.exclude == ("convert_time", "get_time")

    config = store.apply(SetServerDisabled("time", True))
    assert config.servers[0].disabled

    config = store.apply(AddServer("sse", HttpSpec(url="http://h/sse", transport="sse")))
    assert [s.name for s in config.servers] == ["time", "remote", "sse"]
    assert config.servers[2].spec == HttpSpec(url="http://h/sse", transport="sse")

    config = store.apply(RemoveServer("time"))
    assert [s.name for s in config.servers] == ["remote", "sse"]


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_indentation_survives(tmp_path: Path, indent: int | str) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL, indent)
    ConfigStore(path).apply(SetServerDisabled("time", True))
    unit = indent if isinstance(indent, str) else " " * indent
    text = path.read_text()
    assert f'\n{unit}"mcpServers": {{\n{unit}{unit}"time": {{\n' in text
    assert f'\n{unit}{unit}{unit}"disabled": true\n' in text


def test_inline_arrays_stay_inline(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        '{\n  "mcpServers": {\n    "a": {"command": "x", "args": ["-a", "-b"]}\n  }\n}\n'
    )
    ConfigStore(path).apply(SetToolEnabled("a", "t", False))
    assert '"args": ["-a", "-b"]' in path.read_text()


HAND_LAID_OUT = """{
  "mcpServers": {
    "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Paris"]},
    "mine": {"command": "mine"},
    "last": {"command": "last"}
  },
  "other": {"a": 1, "b": [1, 2]}
}
"""


def test_a_hand_laid_out_file_keeps_every_line_an_edit_does_not_touch(tmp_path: Path) -> None:
    """Objects on one line stay on one line: only the edited entry's text changes."""
    path = tmp_path / "mcp.json"
    path.write_text(HAND_LAID_OUT)
    store = ConfigStore(path)
    store.apply(SetToolEnabled("mine", "t", False))
    assert path.read_text() == HAND_LAID_OUT.replace(
        '{"command": "mine"}', '{"command": "mine", "tools": {"exclude": ["t"]}}'
    )
    store.apply(RemoveServer("last"))
    store.apply(AddServer("new", StdioSpec(command="new")))
    text = path.read_text()
    assert HAND_LAID_OUT.splitlines()[2] in text.splitlines()  # "time", untouched
    assert '  "other": {"a": 1, "b": [1, 2]}' in text.splitlines()
    assert [s.name for s in store.load().servers] == ["time", "mine", "new"]


@pytest.mark.parametrize("ending", ["\n", ""])
def test_trailing_newline_is_kept_as_it_was(tmp_path: Path, ending: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(ORIGINAL, indent=2) + ending)
    ConfigStore(path).apply(SetServerDisabled("time", True))
    text = path.read_text()
    assert text.endswith("}" + ending)


def test_crlf_and_bom_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(
        b"\xef\xbb\xbf" + (json.dumps(ORIGINAL, indent=2) + "\n").encode().replace(b"\n", b"\r\n")
    )
    ConfigStore(path).apply(SetServerDisabled("time", True))
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf{\r\n")
    assert data.count(b"\n") == data.count(b"\r\n")
    assert ConfigStore(path).load().servers[0].disabled


def test_file_mode_survives(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    path.chmod(0o640)
    ConfigStore(path).apply(SetServerDisabled("time", True))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_symlink_is_written_through(tmp_path: Path) -> None:
    real_dir = tmp_path / "dotfiles"
    real_dir.mkdir()
    target = real_dir / "mcp.json"
    _write(target, ORIGINAL)
    link = tmp_path / "mcp.json"
    link.symlink_to(target)

    config = ConfigStore(link).apply(SetServerDisabled("time", True))

    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert _read(target)["mcpServers"]["time"]["disabled"] is True
    assert config.servers[0].disabled
    # The temp file lives next to the target, and none is left behind.
    assert sorted(p.name for p in real_dir.iterdir()) == ["mcp.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dotfiles", "mcp.json"]


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real" / "mcp.json"
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    ConfigStore(link).apply(AddServer("a", StdioSpec(command="x")))
    assert link.is_symlink()
    assert _read(target) == {"mcpServers": {"a": {"command": "x"}}}


def test_missing_file_is_created_with_two_space_indent(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "mcp.json"
    config = ConfigStore(path).apply(AddServer("a", StdioSpec(command="x", args=("y",))))
    assert path.read_text() == (
        '{\n  "mcpServers": {\n    "a": {\n'
        '      "command": "x",\n      "args": ["y"]\n    }\n  }\n}\n'
    )
    assert config.servers[0].name == "a"


def test_blank_file_takes_an_edit(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("\n")
    ConfigStore(path).apply(AddServer("a", StdioSpec(command="x")))
    assert _read(path) == {"mcpServers": {"a": {"command": "x"}}}


def test_a_file_that_held_text_and_is_blank_now_is_half_saved_and_never_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(ORIGINAL))
    store = ConfigStore(path)
    assert len(store.load().servers) == 2
    for blank in ("", "  \n\t"):
        path.write_text(blank)  # truncated by a writer that is not atomic: not written yet
        with pytest.raises(ConfigError, match="empty now but was not when last read"):
            store.load()
        with pytest.raises(ConfigError, match="half-saved") as caught:
            store.apply(AddServer("b", StdioSpec(command="y")))
        assert str(caught.value).startswith(f"{path}: ")
        assert path.read_text() == blank
    path.write_text(json.dumps(ORIGINAL))  # the writer's bytes arrive
    assert len(store.load().servers) == 2
    path.unlink()  # a file removed means no servers, as a file never seen blank does
    assert store.load().servers == ()
    path.write_text("")
    assert store.load().servers == ()
    assert ConfigStore(path).apply(AddServer("a", StdioSpec(command="x"))).servers[0].name == "a"


def test_a_broken_file_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n'
    path.write_text(text)
    before = path.stat()
    with pytest.raises(ConfigError) as caught:
        ConfigStore(path).apply(AddServer("b", StdioSpec(command="y")))
    assert str(caught.value).startswith(str(path))
    assert path.read_text() == text
    assert path.stat().st_ino == before.st_ino
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_invalid_entry_is_kept_as_it_is_while_others_are_edited(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}')
    config = ConfigStore(path).apply(AddServer("b", StdioSpec(command="y")))
    assert [s.name for s in config.servers] == ["a", "b"]
    assert config.servers[0].problem is not None
    assert "both 'command' and 'url'" in config.servers[0].problem
    assert _read(path)["mcpServers"]["a"] == {"command": "x", "url": "http://h"}
    config = ConfigStore(path).apply(RemoveServer("a"))
    assert [s.name for s in config.servers] == ["b"]


def test_refused_edit_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    text = path.read_text()
    with pytest.raises(UnknownServerError):
        ConfigStore(path).apply(RemoveServer("nope"))
    with pytest.raises(ConfigError, match="already exists"):
        ConfigStore(path).apply(AddServer("time", StdioSpec(command="x")))
    assert path.read_text() == text


def test_no_op_edit_does_not_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)
    version = store.version()
    config = store.apply(SetToolEnabled("time", "convert_time", False))
    assert store.version() == version
    assert config == store.load()


def test_version_changes_with_a_write(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    store = ConfigStore(path)
    assert store.version() is None
    store.apply(AddServer("a", StdioSpec(command="x")))
    first = store.version()
    assert first is not None
    store.apply(SetServerDisabled("a", True))
    assert store.version() != first


def test_external_edit_between_load_and_apply_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)
    store.load()
    # Someone else adds a server after our load.
    outside = _read(path)
    outside["mcpServers"]["theirs"] = {"command": "theirs"}
    _write(path, outside)

    config = store.apply(SetServerDisabled("time", True))

    on_disk = _read(path)
    assert on_disk["mcpServers"]["theirs"] == {"command": "theirs"}
    assert on_disk["mcpServers"]["time"]["disabled"] is True
    assert [s.name for s in config.servers] == ["time", "remote", "theirs"]


def test_change_during_apply_is_retried_and_both_edits_survive(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)
    calls: list[int] = []

    def meddle(target: Path) -> None:
        calls.append(1)
        if len(calls) == 1:  # change the file once, after apply has read it
            outside = _read(target)
            outside["toolBudget"] = 7
            _write(target, outside)

    store._before_replace = meddle
    config = store.apply(SetToolEnabled("time", "get_time", False))

    assert len(calls) == 2
    on_disk = _read(path)
    assert on_disk["toolBudget"] == 7
    assert on_disk["mcpServers"]["time"]["tools"]["exclude"] == ["convert_time", "get_time"]
    assert config.tool_budget == 7
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_file_that_keeps_changing_gives_up_without_writing(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path, attempts=3)
    counter: list[int] = []

    def meddle(target: Path) -> None:
        counter.append(1)
        _write(target, {**ORIGINAL, "toolBudget": len(counter)})

    store._before_replace = meddle
    with pytest.raises(ConfigError, match="kept changing"):
        store.apply(SetServerDisabled("time", True))
    assert len(counter) == 3
    assert _read(path) == {**ORIGINAL, "toolBudget": 3}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_file_deleted_during_apply_is_retried(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)
    calls: list[int] = []

    def delete_once(target: Path) -> None:
        calls.append(1)
        if len(calls) == 1:
            target.unlink()

    store._before_replace = delete_once
    with pytest.raises(UnknownServerError):
        # The fresh read of the retry sees no file, hence no server to disable.
        store.apply(SetServerDisabled("time", True))
    assert not path.exists()


def test_a_held_lock_times_out(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    text = path.read_text()
    with open(lock_path(path), "w") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        with pytest.raises(ConfigError, match="another process"):
            ConfigStore(path, lock_timeout=0.05).apply(SetServerDisabled("time", True))
    assert path.read_text() == text


def test_concurrent_writers_lose_no_edit(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    tools = [f"tool{i}" for i in range(8)]
    errors: list[BaseException] = []

    def disable(tool: str) -> None:
        try:
            ConfigStore(path).apply(SetToolEnabled("time", tool, False))
        except BaseException as error:  # surfaced by the assert below
            errors.append(error)

    threads = [threading.Thread(target=disable, args=(tool,)) for tool in tools]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    excluded = ConfigStore(path).load().servers[0].tools.exclude
    assert sorted(excluded) == sorted(["convert_time", *tools])


def test_load_reads_fresh_every_time(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    store = ConfigStore(path)
    assert store.load() == PluginConfig()
    _write(path, {"toolBudget": 3})
    assert store.load().tool_budget == 3


def test_unreadable_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not a regular file \(a directory\)"):
        ConfigStore(tmp_path).load()
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ConfigError, match="not UTF-8"):
        ConfigStore(bad).load()


def test_duplicate_keys_load_last_wins_but_are_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = '{"mcpServers": {"a": {"command": "one"}, "a": {"command": "two"}}}\n'
    path.write_text(text)
    store = ConfigStore(path)
    spec = store.load().servers[0].spec
    assert isinstance(spec, StdioSpec)
    assert spec.command == "two"
    with pytest.raises(ConfigError, match="repeats the key"):
        store.apply(AddServer("b", StdioSpec(command="x")))
    assert path.read_text() == text


def test_several_edits_land_in_one_write_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    _write(path, ORIGINAL)
    store = ConfigStore(path)
    config = store.apply(
        [SetToolEnabled("time", "get_current_time", False), SetToolEnabled("time", "x", False)]
    )
    time = config.server("time")
    assert time is not None
    assert set(time.tools.exclude) >= {"get_current_time", "x"}
    before = path.read_bytes()
    with pytest.raises(UnknownServerError):
        store.apply([SetToolEnabled("time", "y", False), RemoveServer("nope")])
    assert path.read_bytes() == before  # the first edit did not land alone


def test_turning_off_150_tools_writes_a_list_one_item_a_line(tmp_path: Path) -> None:
    """A long exclude list does not become one 3,000-character line: arrays that would run
    past the line width get one item a line, short ones stay inline."""
    path = tmp_path / "mcp.json"
    path.write_text(
        '{\n  "mcpServers": {\n    "big": {\n      "command": "big",\n      "args": ["-v"]\n'
        "    }\n  }\n}\n"
    )
    store = ConfigStore(path)
    tools = [f"tool_number_{index:03}" for index in range(150)]
    store.apply([SetToolEnabled(server="big", tool=tool, enabled=False) for tool in tools])
    text = path.read_text()
    assert max(len(line) for line in text.splitlines()) <= 100
    assert '"args": ["-v"]' in text
    assert '\n          "tool_number_149"\n' in text
    server = store.load().server("big")
    assert server is not None and server.tools.exclude == tuple(tools)
