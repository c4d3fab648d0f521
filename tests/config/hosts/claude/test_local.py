"""Claude Code's local scope: one project's servers inside a realistic ``~/.claude.json``.

The file is laid out the way Claude Code writes it (``JSON.stringify(value, null, 2)``: two-space
indent, every array one item a line, raw non-ASCII, no final newline) and holds several projects,
the user scope's top-level ``mcpServers`` and many unrelated keys. Two variants: one our own JSON
printer reproduces (the store rewrites the whole file), and one with what ``JSON.stringify``
writes and Python does not (``1e-7``, an escaped lone surrogate), so every edit is spliced. In
both, an edit must change the bytes of its own entry and nothing else.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentty_tui.config import (
    AddServer,
    ConfigEdit,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
    SetToolFilter,
    UpdateServer,
)
from agentty_tui.config.documents.formats import JsonFormat
from agentty_tui.config.documents.jsonc import JsoncNode, parse_jsonc
from agentty_tui.config.documents.jsonlayout import JsonStyle, dump_json
from agentty_tui.config.hosts.claude import ClaudeLocalDialect
from agentty_tui.config.hosts.claude.entries import ClaudeCodeDialect
from agentty_tui.errors import ConfigError, UnknownServerError
from agentty_tui.model import HttpSpec, StdioSpec
from tests.fake_home import build_fake_home

HERE = "/home/ada/code/wéb-app"
"""The project under test (non-ASCII, as real folder names are)."""
OTHER = "/home/ada/code/other"
BARE = "/home/ada/notes"
"""A project Claude Code knows but that has no ``mcpServers`` key."""
ABSENT = "/home/ada/code/new"
"""A project the file does not mention."""


def _history(text: str) -> dict[str, Any]:
    return {"display": text, "pastedContents": {}}


DOCUMENT: dict[str, Any] = {
    "numStartups": 212,
    "installMethod": "global",
    "autoUpdates": True,
    "tipsHistory": {"new-user-warmup": 1, "memory-command": 9, "theme-command": 30},
    "promptQueueUseCount": 4,
    "userID": "f3b1c0de",
    "firstStartTime": "2026-01-05T09:12:44.120Z",
    "mcpServers": {
        "github": {
            "type": "http",
            "url": "https://api.example.invalid/mcp/",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
        },
        "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": {}},
    },
    "projects": {
        OTHER: {
            "allowedTools": ["Bash(npm test:*)", "Edit"],
            "history": [_history("fix the flaky test"), _history("run it again ✓")],
            "mcpContextUris": [],
            "mcpServers": {
                "fetch": {"type": "stdio", "command": "other-fetch", "args": [], "env": {}},
                "db": {"type": "stdio", "command": "db-mcp", "args": ["--ro"], "env": {}},
            },
            "enabledMcpjsonServers": [],
            "disabledMcpjsonServers": [],
            "hasTrustDialogAccepted": True,
            "projectOnboardingSeenCount": 2,
        },
        HERE: {
            "allowedTools": [],
            "history": [
                _history("héllo wörld — 日本語 🎉"),
                _history('\u001b[31mred\u001b[0m and a tab\tand a quote " and a \\'),
            ],
            "mcpContextUris": [],
            "mcpServers": {
                "time": {
                    "type": "stdio",
                    "command": "uvx",
                    "args": ["mcp-server-time", "--local-timezone=Europe/Paris"],
                    "env": {"TZ_NOTE": "café"},
                },
                "docs": {"type": "http", "url": "https://docs.example.invalid/mcp"},
                "notes ✎": {
                    "command": "notes-mcp",
                    "tools": {"exclude": ["purge"]},
                    "x-kept": {"b": 1, "a": [2, 1]},
                },
            },
            "enabledMcpjsonServers": ["shared"],
            "disabledMcpjsonServers": [],
            "hasTrustDialogAccepted": True,
            "lastCost": 0.0123456789,
            "lastDuration": 123456,
            "lastTotalInputTokens": 98765,
            "exampleFiles": ["src/app.ts", "src/db.ts"],
        },
        BARE: {"allowedTools": [], "history": [], "hasTrustDialogAccepted": False},
    },
    "oauthAccount": {"accountUuid": "0000", "emailAddress": "ada@example.invalid"},
    "hasCompletedOnboarding": True,
    "cachedChangelog": "# Changelog\n\n## 2.0.1\n- faster ✨\n",
}


_SURROGATE = re.compile("[\ud800-\udfff]")
_EXPONENT = re.compile(r"(?<=\d)e([+-])0(?=\d)")


def _claude_code_text(document: dict[str, Any]) -> str:
    """What ``JSON.stringify(document, null, 2)`` writes: Python's indented JSON, with lone
    surrogates escaped and exponents without a leading zero (``1e-7``) as JavaScript spells
    them (no string of the fixture looks like an exponent)."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    text = _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return _EXPONENT.sub(r"e\1", text)


CANONICAL = _claude_code_text(DOCUMENT)
"""A file our own JSON printer writes identically (the store's whole-file fast path)."""


def _quirky() -> str:
    document = copy.deepcopy(DOCUMENT)
    document["projects"][OTHER]["lastCost"] = 1e-7
    document["projects"][OTHER]["history"].append(_history("half \ud83d emoji"))
    return _claude_code_text(document)


QUIRKY = _quirky()
"""The same file with what only ``JSON.stringify`` writes (``1e-7``, an escaped lone
surrogate): our printer would write it otherwise, so the store must splice."""

VARIANTS = pytest.mark.parametrize("original", [CANONICAL, QUIRKY], ids=["canonical", "quirky"])


def _store(path: Path, root: str = HERE) -> ConfigStore:
    return ConfigStore(path, dialect=ClaudeLocalDialect(root))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".claude.json"
    path.write_bytes(text.encode("utf-8"))
    return path


def _node(text: str, keys: tuple[str, ...]) -> tuple[JsoncNode, int]:
    """The container holding the last of ``keys`` and that member's index."""
    node = parse_jsonc(text)
    for key in keys[:-1]:
        node = next(entry.value for entry in node.entries if entry.key == key)
    index = next(i for i, entry in enumerate(node.entries) if entry.key == keys[-1])
    return node, index


def _slot(text: str, keys: tuple[str, ...]) -> tuple[int, int]:
    """The text a member owns: from the end of the previous member's value (or the opening
    brace) to the start of the next member (or the closing brace), its commas included."""
    node, index = _node(text, keys)
    entries = node.entries
    start = entries[index - 1].value.end if index else node.start + 1
    end = entries[index + 1].start if index + 1 < len(entries) else node.end - 1
    return start, end


def _same_outside(text: str, slot: tuple[int, int], other: str) -> bool:
    """Whether ``other`` is ``text`` with at most the slot's text changed: the bytes before and
    after the slot are there, in full, at the start and the end of ``other``."""
    start, end = slot
    head, tail = text[:start], text[end:]
    return len(other) >= len(head) + len(tail) and other.startswith(head) and other.endswith(tail)


def _without(value: dict[str, Any], root: str, name: str) -> dict[str, Any]:
    """``value`` without the one server entry (and what an edit may create around it)."""
    value = copy.deepcopy(value)
    project = value.get("projects", {}).get(root)
    if project is not None:
        project.get("mcpServers", {}).pop(name, None)
    return value


def _expected_entries(original: str, root: str, edit: ConfigEdit) -> dict[str, Any]:
    """The project's ``mcpServers`` as ``ClaudeCodeDialect`` (``.mcp.json``, Claude Code's
    shape) writes the same edit."""
    servers = json.loads(original)["projects"][root].get("mcpServers", {})
    plain = ClaudeCodeDialect()
    document, _ = plain.parse(json.dumps({"mcpServers": servers}), None)
    edited: dict[str, Any] = plain.apply(document, edit, None)
    return dict(edited["mcpServers"])


# --- loading --------------------------------------------------------------------------------


@VARIANTS
def test_load_gives_exactly_the_projects_servers(tmp_path: Path, original: str) -> None:
    path = _write(tmp_path, original)
    config = _store(path).load()
    assert [server.name for server in config.servers] == ["time", "docs", "notes ✎"]
    time = config.server("time")
    assert time is not None and time.problem is None
    assert time.spec == StdioSpec(
        command="uvx",
        args=("mcp-server-time", "--local-timezone=Europe/Paris"),
        env={"TZ_NOTE": "café"},
    )
    notes = config.server("notes ✎")
    assert notes is not None and notes.tools.exclude == ("purge",)
    docs = config.server("docs")
    assert docs is not None and isinstance(docs.spec, HttpSpec)
    other = _store(path, OTHER).load()
    assert [server.name for server in other.servers] == ["fetch", "db"]
    fetch = other.server("fetch")
    # The project's own `fetch`, not the user scope's of the same name.
    assert fetch is not None and isinstance(fetch.spec, StdioSpec)
    assert fetch.spec.command == "other-fetch"


@pytest.mark.parametrize("root", [ABSENT, BARE])
def test_an_absent_project_or_one_without_servers_has_none(tmp_path: Path, root: str) -> None:
    config = _store(_write(tmp_path, CANONICAL), root).load()
    assert config.servers == ()


@pytest.mark.parametrize("text", ["", "  \n", '{"numStartups": 1}', '{"projects": {}}'], ids=repr)
def test_a_file_without_projects_has_no_servers(tmp_path: Path, text: str) -> None:
    assert _store(_write(tmp_path, text)).load().servers == ()


def test_a_missing_file_has_no_servers(tmp_path: Path) -> None:
    assert _store(tmp_path / ".claude.json").load().servers == ()


def test_the_root_is_normalized_and_must_be_absolute() -> None:
    assert ClaudeLocalDialect(HERE + "/").project_root == HERE
    assert ClaudeLocalDialect(Path(HERE)).project_root == HERE
    with pytest.raises(ValueError, match="absolute"):
        ClaudeLocalDialect("code/app")


def test_catalog_settings_are_not_read_from_the_project(tmp_path: Path) -> None:
    document = copy.deepcopy(DOCUMENT)
    # Wrong for our settings (a negative budget, a string of tools): they must not be read.
    document["projects"][HERE]["toolBudget"] = -3
    document["projects"][HERE]["nativeTools"] = "not a list"
    document["toolBudget"] = 5
    config = _store(_write(tmp_path, _claude_code_text(document))).load()
    default = ClaudeLocalDialect(HERE).parse("", None)[1]
    assert config.tool_budget == default.tool_budget
    assert config.native_tools is None
    assert len(config.servers) == 3


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.__setitem__("projects", ["/x"]), "'projects'"),
        (lambda d: d["projects"].__setitem__(HERE, "oops"), f"'projects[\"{HERE}\"]'"),
        (lambda d: d["projects"][HERE].__setitem__("mcpServers", [1]), ".mcpServers'"),
        (lambda d: d["projects"][HERE].__setitem__("mcpServers", None), ".mcpServers'"),
    ],
    ids=["projects", "project", "servers", "null-servers"],
)
def test_a_wrong_shape_is_a_clear_error(tmp_path: Path, change: Any, field: str) -> None:
    document = copy.deepcopy(DOCUMENT)
    change(document)
    path = _write(tmp_path, _claude_code_text(document))
    store = _store(path)
    before = path.read_bytes()
    with pytest.raises(ConfigError) as raised:
        store.load()
    message = str(raised.value)
    assert message.startswith(str(path)) and field in message and "must be an object" in message
    with pytest.raises(ConfigError):
        store.apply(AddServer("x", StdioSpec(command="x")))
    assert path.read_bytes() == before


def test_a_wrong_top_level_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="top level must be an object, not an array"):
        _store(_write(tmp_path, "[1]")).load()


def test_a_bad_entry_names_the_file_the_server_and_the_project(tmp_path: Path) -> None:
    document = copy.deepcopy(DOCUMENT)
    document["projects"][HERE]["mcpServers"]["time"]["args"] = "not-a-list"
    path = _write(tmp_path, _claude_code_text(document))
    config = _store(path).load()
    time = config.server("time")
    assert time is not None and time.problem is not None
    assert time.problem.startswith(f"{path}: server 'time', field ")
    assert f'projects["{HERE}"].mcpServers["time"].args' in time.problem
    # The others still load.
    assert all(s.problem is None for s in config.servers if s.name != "time")


def test_edit_errors_name_the_project(tmp_path: Path) -> None:
    path = _write(tmp_path, CANONICAL)
    store = _store(path)
    with pytest.raises(ConfigError) as taken:
        store.apply(AddServer("time", StdioSpec(command="x")))
    assert str(taken.value) == (
        f"{path}: server 'time', field 'projects[\"{HERE}\"].mcpServers[\"time\"]': "
        "a server of this name already exists"
    )
    with pytest.raises(UnknownServerError) as unknown:
        store.apply(SetServerDisabled("tme", True))
    assert str(unknown.value) == (
        f"no server named 'tme' in {path}, projects[\"{HERE}\"].mcpServers; did you mean 'time'?"
    )
    with pytest.raises(ConfigError, match=r"server 'nope'.*mcpServers\[\"nope\"\]"):
        store.apply(UpdateServer("nope", StdioSpec(command="x")))
    # A server of the user scope is not one of this project's.
    with pytest.raises(UnknownServerError):
        store.apply(RemoveServer("github"))
    assert path.read_text() == CANONICAL


# --- each edit, byte for byte ---------------------------------------------------------------

EDITS: list[tuple[str, ConfigEdit]] = [
    ("time", SetToolEnabled("time", "convert_time", False)),
    ("notes ✎", SetToolEnabled("notes ✎", "purge", True)),
    ("time", SetToolFilter("time", ("get_time",), ("convert_time",))),
    ("docs", SetServerDisabled("docs", True)),
    ("time", UpdateServer("time", StdioSpec(command="uvx", args=("mcp-server-time",)))),
    ("docs", UpdateServer("docs", HttpSpec(url="https://docs.example.invalid/v2"), 9, None)),
    ("notes ✎", RemoveServer("notes ✎")),
    ("time", RemoveServer("time")),
    ("zeta ☂", AddServer("zeta ☂", StdioSpec(command="npx", args=("-y", "zeta")), 5)),
    ("remote", AddServer("remote", HttpSpec(url="https://r.example.invalid/mcp"))),
]


@VARIANTS
@pytest.mark.parametrize(("name", "edit"), EDITS, ids=[repr(edit) for _, edit in EDITS])
def test_each_edit_lands_in_its_entry_and_nowhere_else(
    tmp_path: Path, original: str, name: str, edit: ConfigEdit
) -> None:
    path = _write(tmp_path, original)
    config = _store(path).apply(edit)
    after = path.read_bytes().decode("utf-8")

    # The entry is what ClaudeCodeDialect writes for the same edit, in the same order.
    servers = json.loads(after)["projects"][HERE]["mcpServers"]
    assert servers == _expected_entries(original, HERE, edit)
    assert list(servers) == list(_expected_entries(original, HERE, edit))
    assert [s.name for s in config.servers] == list(servers)
    # Everything but the entry holds the same values...
    assert _without(json.loads(after), HERE, name) == _without(json.loads(original), HERE, name)
    # ... and the same bytes: the text differs only within the entry's own slot.
    entry = ("projects", HERE, "mcpServers", name)
    if isinstance(edit, AddServer):
        assert _same_outside(after, _slot(after, entry), original)
    else:
        assert _same_outside(original, _slot(original, entry), after)
    if not isinstance(edit, RemoveServer | AddServer):
        assert _same_outside(after, _slot(after, entry), original)
    assert not after.endswith("\n")  # Claude Code writes no final newline; neither do we


@VARIANTS
def test_the_text_of_an_unchanged_entry_is_untouched_when_spliced(original: str) -> None:
    """Within the edited project, the other entries keep their exact text too."""
    dialect = ClaudeLocalDialect(HERE)
    document, _ = dialect.parse(original, None)
    after = dialect.dump(dialect.apply(document, SetServerDisabled("docs", True), None), original)
    for other in ("time", "notes ✎"):
        span = _slot(original, ("projects", HERE, "mcpServers", other))
        new_span = _slot(after, ("projects", HERE, "mcpServers", other))
        assert original[span[0] : span[1]] == after[new_span[0] : new_span[1]]


@pytest.mark.parametrize(
    ("root", "created"),
    [(ABSENT, ("projects", ABSENT)), (BARE, ("projects", BARE, "mcpServers"))],
    ids=["absent-project", "project-without-servers"],
)
@VARIANTS
def test_an_add_creates_what_it_needs_and_nothing_else(
    tmp_path: Path, original: str, root: str, created: tuple[str, ...]
) -> None:
    path = _write(tmp_path, original)
    spec = StdioSpec(command="npx", args=("-y", "first"))
    _store(path, root).apply(AddServer("first", spec))
    after = path.read_text(encoding="utf-8")
    value = json.loads(after)
    expected = json.loads(original)
    project = expected["projects"].setdefault(root, {})
    # As ``claude mcp add -s local`` writes it.
    first = {"type": "stdio", "command": "npx", "args": ["-y", "first"], "env": {}}
    project["mcpServers"] = {"first": first}
    assert value == expected
    assert list(value["projects"]) == list(expected["projects"])  # a new project comes last
    assert _same_outside(after, _slot(after, created), original)
    loaded = _store(path, root).load().server("first")
    assert loaded is not None and loaded.spec == spec


@pytest.mark.parametrize("text", ['{\n  "numStartups": 3\n}', ""], ids=["no-projects", "empty"])
def test_an_add_to_a_file_without_projects_makes_the_map(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, text)
    _store(path).apply(AddServer("a", StdioSpec(command="a")))
    value = json.loads(path.read_text(encoding="utf-8"))
    assert value == {
        **json.loads(text or "{}"),
        "projects": {
            HERE: {"mcpServers": {"a": {"type": "stdio", "command": "a", "args": [], "env": {}}}}
        },
    }


def test_the_user_scope_servers_are_never_touched(tmp_path: Path) -> None:
    path = _write(tmp_path, CANONICAL)
    store = _store(path, OTHER)  # OTHER has a `fetch` of its own, as the user scope does
    store.apply(SetServerDisabled("fetch", True))
    store.apply(AddServer("github", StdioSpec(command="gh-local")))
    store.apply(RemoveServer("fetch"))
    value = json.loads(path.read_text(encoding="utf-8"))
    assert value["mcpServers"] == DOCUMENT["mcpServers"]
    user_slot = _slot(CANONICAL, ("mcpServers",))
    assert path.read_text(encoding="utf-8").startswith(CANONICAL[: user_slot[1]])
    assert list(value["projects"][OTHER]["mcpServers"]) == ["db", "github"]


def test_a_no_op_edit_does_not_write(tmp_path: Path) -> None:
    path = _write(tmp_path, QUIRKY)
    version = _store(path).version()
    _store(path).apply(SetServerDisabled("time", False))
    assert _store(path).version() == version and path.read_text(encoding="utf-8") == QUIRKY


def test_apply_leaves_the_given_document_as_it_was() -> None:
    dialect = ClaudeLocalDialect(HERE)
    document, _ = dialect.parse(CANONICAL, None)
    kept = copy.deepcopy(document)
    dialect.apply(document, RemoveServer("time"), None)
    dialect.apply(document, AddServer("x", StdioSpec(command="x")), None)
    assert document == kept


# --- a race with Claude Code ----------------------------------------------------------------


def _claude_code_rewrites(target: Path) -> None:
    """What Claude Code does to the file at any moment: read it, change its own keys (and add a
    local server of its own), write the whole file back."""
    value = json.loads(target.read_text(encoding="utf-8"))
    value["numStartups"] += 1
    value["projects"][HERE]["history"].insert(0, _history("a prompt typed meanwhile ⏳"))
    value["projects"][HERE]["mcpServers"]["from-claude"] = {
        "type": "stdio",
        "command": "cc-added",
        "args": [],
        "env": {},
    }
    value["projects"][OTHER]["allowedTools"].append("Read")
    value["mcpServers"]["user-added"] = {"type": "sse", "url": "https://sse.example.invalid"}
    target.write_text(_claude_code_text(value), encoding="utf-8")


@VARIANTS
def test_an_outside_rewrite_mid_apply_survives_and_our_edit_lands(
    tmp_path: Path, original: str
) -> None:
    path = _write(tmp_path, original)
    store = _store(path)
    calls: list[Path] = []

    def meanwhile(target: Path) -> None:
        calls.append(target)
        if len(calls) == 1:
            _claude_code_rewrites(target)

    store._before_replace = meanwhile
    config = store.apply(SetToolEnabled("time", "convert_time", False))
    assert len(calls) == 2  # the first attempt saw the change and started over

    (tmp_path / "theirs").mkdir()
    theirs_path = _write(tmp_path / "theirs", original)
    _claude_code_rewrites(theirs_path)
    expected = json.loads(theirs_path.read_text(encoding="utf-8"))
    expected["projects"][HERE]["mcpServers"]["time"]["tools"] = {"exclude": ["convert_time"]}
    assert json.loads(path.read_text(encoding="utf-8")) == expected
    assert [s.name for s in config.servers] == ["time", "docs", "notes ✎", "from-claude"]


# --- other projects are never changed -------------------------------------------------------

ROOTS = (HERE, OTHER, BARE, ABSENT)
NAMES = ("time", "docs", "fetch", "db", "new ☂")


@st.composite
def _edits(draw: st.DrawFn) -> tuple[str, ConfigEdit]:
    root = draw(st.sampled_from(ROOTS))
    name = draw(st.sampled_from(NAMES))
    choices: list[ConfigEdit] = [
        AddServer(name, StdioSpec(command="c", args=("a", "b"))),
        RemoveServer(name),
        SetToolEnabled(name, "tool", draw(st.booleans())),
        SetToolFilter(name, None, ("x",)),
        SetServerDisabled(name, draw(st.booleans())),
        UpdateServer(name, HttpSpec(url="https://u.example.invalid")),
    ]
    return root, draw(st.sampled_from(choices))


def _project_texts(text: str) -> dict[str, str]:
    """The exact text of every top-level member and of every project but the one edited."""
    root = parse_jsonc(text)
    texts = {f"top:{e.key}": text[e.value.start : e.value.end] for e in root.entries}
    projects = next(e.value for e in root.entries if e.key == "projects")
    texts.pop("top:projects")
    texts.update({f"project:{e.key}": text[e.start : e.value.end] for e in projects.entries})
    return texts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    original=st.sampled_from([CANONICAL, QUIRKY]), steps=st.lists(_edits(), min_size=1, max_size=6)
)
def test_other_projects_and_keys_are_never_changed(
    original: str, steps: list[tuple[str, ConfigEdit]]
) -> None:
    text = original
    for root, edit in steps:
        dialect = ClaudeLocalDialect(root)
        document, _ = dialect.parse(text, None)
        try:
            edited = dialect.apply(document, edit, None)
        except (ConfigError, UnknownServerError):
            continue  # refused (a name taken or missing): nothing to check
        new_text = dialect.dump(edited, text)
        before, after = _project_texts(text), _project_texts(new_text)
        mine = f"project:{root}"
        before.pop(mine, None)
        after.pop(mine, None)
        assert after == before
        text = new_text


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run JSON.stringify")
@VARIANTS
def test_the_fixtures_are_what_json_stringify_writes(tmp_path: Path, original: str) -> None:
    """The premise of this file: both variants are Claude Code's own layout, byte for byte."""
    path = _write(tmp_path, original)
    script = (
        "const fs = require('fs');"
        "const text = fs.readFileSync(process.argv[1], 'utf8');"
        "process.stdout.write(JSON.stringify(JSON.parse(text), null, 2));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(path)], capture_output=True, check=True, timeout=60
    )
    assert result.stdout.decode("utf-8") == original


def test_the_variants_take_both_ways_of_writing() -> None:
    """The canonical variant is what our printer writes (the store rewrites it whole); the
    quirky one is not (the store splices it)."""
    for text, ours in ((CANONICAL, True), (QUIRKY, False)):
        assert (dump_json(json.loads(text), JsonStyle.of(text)) == text) is ours


# --- splicing only the project ---------------------------------------------------------------


@VARIANTS
@pytest.mark.parametrize(("name", "edit"), EDITS, ids=[repr(edit) for _, edit in EDITS])
def test_splicing_the_project_writes_what_the_whole_file_way_writes(
    original: str, name: str, edit: ConfigEdit
) -> None:
    """Splicing the project's text alone gives the very text the JSON format writes for the
    whole file (our printer's for the canonical file, the whole-file splice for the other)."""
    dialect = ClaudeLocalDialect(HERE)
    document, _ = dialect.parse(original, None)
    edited = dialect.apply(document, edit, None)
    assert dialect.dump(edited, original) == JsonFormat().dump(edited, original)


def test_only_the_projects_text_goes_through_the_jsonc_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large file (a long history in another project) is not parsed whole for an edit."""
    document = copy.deepcopy(DOCUMENT)
    document["projects"][OTHER]["history"] = [_history(f"prompt {i} ✓") for i in range(3000)]
    document["projects"][OTHER]["lastCost"] = 1e-7  # not our printer's layout: a splice
    text = _claude_code_text(document)
    assert '"lastCost": 1e-7' in text
    path = _write(tmp_path, text)
    parsed: list[int] = []

    def counting(source: str, where: str | None = None) -> JsoncNode:
        parsed.append(len(source))
        return parse_jsonc(source, where)

    monkeypatch.setattr("agentty_tui.config.documents.jsonc.parse_jsonc", counting)
    _store(path).apply(SetToolEnabled("time", "convert_time", False))
    assert parsed and max(parsed) < len(text) // 20
    after = path.read_text(encoding="utf-8")
    assert _same_outside(text, _slot(text, ("projects", HERE)), after)
    value = json.loads(after)
    assert value["projects"][HERE]["mcpServers"]["time"]["tools"] == {"exclude": ["convert_time"]}


def test_a_document_changed_elsewhere_is_written_the_whole_file_way() -> None:
    """``dump`` of a document that differs outside the project (no edit of ours does that)
    still writes that difference."""
    dialect = ClaudeLocalDialect(HERE)
    document, _ = dialect.parse(QUIRKY, None)
    edited = dialect.apply(document, SetServerDisabled("docs", True), None)
    other = {**edited["projects"][OTHER], "allowedTools": []}
    for changed in (
        {**edited, "numStartups": 1},
        {**edited, "projects": {**edited["projects"], OTHER: other}},
    ):
        text = dialect.dump(changed, QUIRKY)
        assert text == JsonFormat().dump(changed, QUIRKY)
        assert json.loads(text) == changed


# --- the fake home ---------------------------------------------------------------------------


@pytest.mark.parametrize("atomic", [True, False], ids=["by-rename", "in-place"])
def test_the_fake_homes_local_scope_loads_and_survives_claude_codes_rewrite(
    tmp_path: Path, atomic: bool
) -> None:
    """The shared fake home: this project's local servers load (none of the user scope's or
    other projects'), and an edit raced by Claude Code's own rewrite keeps both."""
    fake = build_fake_home(tmp_path)
    path = fake.files["claude-local"]
    store = ConfigStore(path, dialect=ClaudeLocalDialect(fake.project))
    config = store.load()
    assert tuple(s.name for s in config.servers) == fake.servers["claude-local"]
    for server in config.servers:
        planned = fake.entry("claude-local", server.name)
        spec = server.spec
        if planned.argv is not None:
            assert isinstance(spec, StdioSpec) and (spec.command, *spec.args) == planned.argv
        else:
            assert isinstance(spec, HttpSpec) and spec.url == planned.url
    name = config.servers[0].name
    theirs: list[str] = []

    def meanwhile(_target: Path) -> None:
        if not theirs:
            theirs.append(fake.claude_code_writes("typed during our edit", atomic=atomic))

    store._before_replace = meanwhile
    store.apply(SetToolEnabled(name, "echo", False))
    value = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(theirs[0])
    project = expected["projects"][str(fake.project)]
    project["mcpServers"][name]["tools"] = {"exclude": ["echo"]}
    assert value == expected
    assert project["history"][0]["display"] == "typed during our edit"
