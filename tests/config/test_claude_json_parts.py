"""``~/.claude.json`` read in parts (``formats._read_in_parts``): what a load of a heavy user's
file costs is what its two small parts cost, and nothing a whole parse guarantees is lost.

A load reads the file's every byte through the C decoder one value at a time and builds only
the top level's small members and this project; an edit parses it whole once. These tests
hold the two ways to the same configs and the same errors, keep hostile nesting refused with a
clear error, and count the parses an edit makes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentty_tui.config import ConfigStore, SetServerDisabled, files
from agentty_tui.config import store as store_module
from agentty_tui.config.documents import formats, jsonspan
from agentty_tui.config.documents.formats import JsonFormat, Loaded, parses_shared, parses_whole
from agentty_tui.config.hosts.claude import ClaudeLocalDialect
from agentty_tui.config.hosts.mcpjson import McpJsonDialect
from agentty_tui.errors import ConfigError
from agentty_tui.model import PluginConfig

HERE = "/home/ada/code/wéb-app"
PATH = "/home/ada/.claude.json"

_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
_entries = st.sampled_from(
    [
        {"command": "npx", "args": ["-y", "tool@1"]},
        {"url": "https://example.com/mcp", "headers": {"X": "1"}},
        {"command": "uvx", "disabled": True, "tools": {"exclude": ["a"]}},
        {"command": 5},
        "not an entry",
        {},
    ]
)
_servers = st.dictionaries(st.sampled_from(["a", "b", "tîme", "d"]), _entries, max_size=3)
_project = st.fixed_dictionaries(
    {"history": st.lists(_values, max_size=3)},
    optional={"mcpServers": _servers | _scalars, "allowedTools": _values},
)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    """A ``~/.claude.json`` in one of the layouts a writer may use, sometimes damaged."""
    projects: dict[str, Any] = draw(st.dictionaries(st.text(max_size=6), _project, max_size=3))
    if draw(st.booleans()):
        projects[HERE] = draw(_project)
    top: dict[str, Any] = draw(st.dictionaries(st.sampled_from(["n", "tips", "x"]), _values))
    top["mcpServers"] = draw(_servers | _scalars)
    top["projects"] = draw(st.just(projects) | _scalars)
    order = draw(st.permutations(list(top)))
    document = {key: top[key] for key in order}
    indent = draw(st.sampled_from([None, 2, "\t"]))
    text = json.dumps(document, indent=indent, ensure_ascii=draw(st.booleans()))
    damage = draw(st.sampled_from(["none", "insert", "cut"]))
    if damage != "none":
        at = draw(st.integers(0, len(text)))
        if damage == "cut":
            text = text[:at]
        else:
            text = text[:at] + draw(st.sampled_from(list('{}[],:" x\\0'))) + text[at:]
    return text


def _outcome(dialect: Any, text: str) -> PluginConfig | str:
    try:
        config: PluginConfig = dialect.parse(text, PATH)[1]
    except ConfigError as error:
        return f"error: {error}"
    except ValueError as error:
        # A url the entry check does not catch ("https://[host") raises from urlsplit on both
        # ways alike (entry_rules.url_transport: outside this change); equal is what is held.
        return f"crash: {error!r}"
    return config


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_in_parts_and_whole_give_the_same_configs_and_errors(text: str) -> None:
    for make in (McpJsonDialect, lambda: ClaudeLocalDialect(HERE)):
        in_parts = _outcome(make(), text)
        with parses_whole():
            whole = _outcome(make(), text)
        assert in_parts == whole


_GOOD = json.dumps(
    {"mcpServers": {"u": {"command": "true"}}, "projects": {HERE: {"mcpServers": {}}}}, indent=2
)


@pytest.mark.parametrize(
    "text",
    [
        _GOOD + " x",  # extra data after the document
        _GOOD + "{}",
        _GOOD[:-1],  # cut: the top object never closed
        _GOOD.replace("},", "}", 1),  # a missing comma between top-level members
        _GOOD.replace('"projects"', "projects"),
        "[" + _GOOD + "]",  # not an object at the top
        _GOOD.replace('"mcpServers": {}', '"mcpServers": {},'),  # a trailing comma (JSONC)
        _GOOD.replace('"mcpServers": {}', '"mcpServers": {} // mine'),
    ],
)
def test_damaged_texts_give_the_errors_of_a_whole_parse(text: str) -> None:
    for make in (McpJsonDialect, lambda: ClaudeLocalDialect(HERE)):
        in_parts = _outcome(make(), text)
        with parses_whole():
            assert _outcome(make(), text) == in_parts
        assert isinstance(in_parts, str) and in_parts.startswith("error:")


def _claude_json(project: Any, other: Any = None, servers: Any = None) -> str:
    document = {
        "numStartups": 3,
        "mcpServers": servers or {"u": {"command": "true"}},
        "projects": {"/other": other or {"history": []}, HERE: project},
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_hostile_depth_in_a_part_read_is_refused_with_its_line() -> None:
    deep = _claude_json({"history": _nested(150)}).replace('"' + _nested(150) + '"', _nested(150))
    with pytest.raises(ConfigError, match=r"nested deeper than 100 levels") as caught:
        ClaudeLocalDialect(HERE).parse(deep, PATH)
    assert caught.value.line == deep[: deep.index("[[")].count("\n") + 1
    # The project's object is 3 levels down: 98 levels inside it are 101 in the file.
    limit = _claude_json({"history": "x"}).replace('"x"', _nested(98))
    with pytest.raises(ConfigError, match=r"nested deeper than 100 levels"):
        ClaudeLocalDialect(HERE).parse(limit, PATH)
    ClaudeLocalDialect(HERE).parse(limit.replace(_nested(98), _nested(97)), PATH)
    # The user scope reads no project: this one's depth is not its problem.
    assert [s.name for s in McpJsonDialect().parse(deep, PATH)[1].servers] == ["u"]
    # The user scope's servers count as deep as anything else of the file's top level.
    user = _claude_json({}).replace('"numStartups": 3', '"numStartups": ' + _nested(120))
    with pytest.raises(ConfigError, match=r"nested deeper than 100 levels"):
        McpJsonDialect().parse(user, PATH)


def test_depth_past_the_decoders_own_guard_is_a_clear_error_not_a_crash() -> None:
    # Deep enough that the C decoder gives up (RecursionError) in a project no load reads.
    text = _claude_json({}).replace('"history": []', '"history": ' + _nested(100_000), 1)
    for dialect in (McpJsonDialect(), ClaudeLocalDialect(HERE)):
        with pytest.raises(
            ConfigError, match=r"claude\.json:\d+:\d+: invalid JSON: nested deeper than 100 levels"
        ):
            dialect.parse(text, PATH)


def test_a_repeated_key_in_the_parts_read_is_a_warning_with_its_line() -> None:
    text = _claude_json({"mcpServers": {"l": {"command": "true"}}, "history": []})
    text = text.replace('"history": []', '"history": [], "history": []')  # both projects
    text = text.replace('"numStartups": 3', '"numStartups": 3, "numStartups": 4')
    line = text.count("\n", 0, text.rindex('"history": [], "history"')) + 1
    local = ClaudeLocalDialect(HERE).parse(text, PATH)[1]
    assert f"{PATH}:{line}: duplicate key 'history' (the last one is used)" in local.warnings
    assert any("duplicate key 'numStartups'" in warning for warning in local.warnings)
    # Another project's repeated key is Claude Code's business: never read, never written.
    assert len(local.warnings) == 2
    user = McpJsonDialect().parse(text, PATH)[1]
    assert any("duplicate key 'numStartups'" in warning for warning in user.warnings)


def test_a_load_builds_only_this_project(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[str] = []
    decode = formats._decode_part

    def counted(text: str, member: jsonspan.Member, *args: Any) -> Any:
        decoded.append(member.key)
        return decode(text, member, *args)

    monkeypatch.setattr(formats, "_decode_part", counted)
    config = ClaudeLocalDialect(HERE).parse(_claude_json({"mcpServers": {}}), PATH)[1]
    assert config.servers == ()
    assert decoded == ["numStartups", "mcpServers", HERE]


def test_an_edit_parses_the_file_whole_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".claude.json"
    path.write_text(_claude_json({"mcpServers": {"l": {"command": "true"}}, "history": []}))
    size = len(path.read_text())
    whole: list[int] = []
    in_parts: list[int] = []
    loads: list[int] = []
    parse, read_in_parts, json_loads = JsonFormat._parse, formats._read_in_parts, json.loads

    def counted_parse(self: JsonFormat, text: str, where: str | None) -> Loaded:
        whole.append(len(text))
        return parse(self, text, where)

    def counted_parts(text: str, where: str | None) -> Loaded | None:
        in_parts.append(len(text))
        return read_in_parts(text, where)

    def counted_loads(text: str, *args: Any, **kwargs: Any) -> Any:
        loads.append(len(text))
        return json_loads(text, *args, **kwargs)

    monkeypatch.setattr(JsonFormat, "_parse", counted_parse)
    monkeypatch.setattr(formats, "_read_in_parts", counted_parts)
    monkeypatch.setattr(json, "loads", counted_loads)  # every module's: one json module
    store = ConfigStore(path, dialect=ClaudeLocalDialect(HERE))
    config = store.apply(SetServerDisabled("l", True))
    assert config.server("l") is not None and config.server("l").disabled  # type: ignore[union-attr]
    # One whole parse to edit; the dump reuses it; the check of the new text is a load's read.
    assert len(whole) == 1
    assert len(in_parts) == 1
    assert len([n for n in loads if n >= size]) == 1  # the whole parse's


def test_a_load_reads_the_file_once_for_its_two_stores_and_again_once_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".claude.json"
    path.write_text(_claude_json({"mcpServers": {"l": {"command": "true"}}}))
    reads: list[Path] = []
    read_file = files.read_file

    def counted(target: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(Path(target))
        return read_file(target, *args, **kwargs)

    monkeypatch.setattr(store_module, "read_file", counted)
    user, local = (
        ConfigStore(path, dialect=McpJsonDialect()),
        ConfigStore(path, dialect=ClaudeLocalDialect(HERE)),
    )
    with parses_shared():
        assert [s.name for s in user.load().servers] == ["u"]
        assert [s.name for s in local.load().servers] == ["l"]
    assert len(reads) == 1
    with parses_shared():
        user.load()
        # Claude Code's rewrite between the two reads (a new inode): read again, not reused.
        replaced = tmp_path / "new.json"
        replaced.write_text(_claude_json({"mcpServers": {"m": {"command": "true"}}}))
        replaced.replace(path)
        assert [s.name for s in local.load().servers] == ["m"]
    assert len(reads) == 3
