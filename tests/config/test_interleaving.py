"""Edits made by someone else, before or in the middle of our apply, are never lost.

A hypothesis state machine plays two parties on one file:

- "them": another program that rewrites the JSON with a plain read / modify / write, in its own
  layout (indentation, sorted keys). It adds and removes its own top-level keys and servers, and
  changes fields our edits never touch (unknown keys, ``args``, ``toolBudget``, an unknown key
  inside a ``tools`` object we also edit), on our servers as well as theirs; or it only changes
  the file's mode (``chmod``, not a byte changed);
- "us": ``ConfigStore.apply`` with random ``AddServer`` / ``RemoveServer`` / ``SetToolEnabled``
  / ``SetServerDisabled`` edits of our own servers. Up to two of their edits are also made in the
  middle of an apply, after our temp file is written and before the rename (``_before_replace``).

A model document follows both parties, in the order their edits reached the file (a mid-apply
edit of theirs lands before ours, which is retried on top of it). After every step the file must
equal the model, key order included, and have the mode they last gave it: an edit lost by either
side shows up as a difference.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from agentty_tui.config import (
    AddServer,
    ConfigEdit,
    ConfigStore,
    RemoveServer,
    SetServerDisabled,
    SetToolEnabled,
)
from agentty_tui.errors import ConfigError
from agentty_tui.model import HttpSpec, ServerSpec, StdioSpec

INITIAL: dict[str, Any] = {
    "$schema": "https://example.invalid/mcp.schema.json",
    "toolBudget": 40,
    "mcpServers": {
        "theirs-0": {"command": "their-server", "args": ["0"], "x-note": "theirs"},
        "ours-0": {"command": "our-server", "args": ["--flag"], "alwaysAllow": ["a"]},
        "ours-1": {"url": "http://127.0.0.1:9/mcp", "tools": {"exclude": ["t1"]}},
    },
    "zLast": {"nested": [1, {"k": "v"}]},
}

OUR_NAMES = tuple(f"ours-{i}" for i in range(6))
TOOLS = ("t0", "t1", "t2", "t3")


def ordered(value: Any) -> Any:
    """A JSON value with every object turned into a list of pairs: equality then checks order."""
    if isinstance(value, dict):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


# --- their side -------------------------------------------------------------------------------

ExternalKind = Literal[
    "set_top",
    "del_top",
    "add_server",
    "remove_server",
    "note",
    "del_note",
    "args",
    "tools_note",
    "budget",
    "chmod",
]

THEIR_MODES = (0o600, 0o640, 0o644)
"""Modes they may give the file (``chmod`` edits change only the mode, not a byte)."""


@dataclass(frozen=True)
class External:
    """One read / modify / write of the file by the other party.

    ``pick`` chooses the target among the candidates present when the edit runs (modulo their
    number), so an edit drawn in advance (a mid-apply one) always finds something to act on.
    """

    kind: ExternalKind
    pick: int
    value: int
    indent: int | str | None
    sort_keys: bool


externals = st.builds(
    External,
    kind=st.sampled_from(get_args(ExternalKind)),
    pick=st.integers(0, 7),
    value=st.integers(0, 99),
    indent=st.sampled_from([2, 4, "\t", None]),
    sort_keys=st.booleans(),
)


def external_edit(path: Path, edit: External, expected: dict[str, Any]) -> dict[str, Any]:
    """Make ``edit`` to the file the way another program would; return what it wrote.

    Before touching the file, check that it holds ``expected``: whatever either side wrote so
    far is there. A ``chmod`` only changes the file's mode (see ``expected_mode``).
    """
    document: dict[str, Any] = json.loads(path.read_text())
    assert ordered(document) == ordered(expected)
    servers: dict[str, Any] = document["mcpServers"]
    theirs = [name for name in servers if name.startswith("theirs")]
    ours = [name for name in servers if name.startswith("ours")]
    everyone = list(servers)
    commands = [name for name in servers if "command" in servers[name]]

    def pick(names: list[str]) -> str | None:
        return names[edit.pick % len(names)] if names else None

    if edit.kind == "set_top":
        document[f"x-theirs-{edit.pick % 3}"] = {"v": edit.value}
    elif edit.kind == "del_top":
        name = pick([key for key in document if key.startswith("x-theirs")])
        if name is not None:
            del document[name]
    elif edit.kind == "add_server":
        servers[f"theirs-{edit.value}"] = {"command": "their-server", "args": [str(edit.value)]}
    elif edit.kind == "remove_server":
        name = pick(theirs)
        if name is not None:
            del servers[name]
    elif edit.kind == "note":
        name = pick(everyone)
        if name is not None:
            servers[name]["x-note"] = edit.value
    elif edit.kind == "del_note":
        name = pick([name for name in everyone if "x-note" in servers[name]])
        if name is not None:
            del servers[name]["x-note"]
    elif edit.kind == "args":
        name = pick(commands)
        if name is not None:
            servers[name]["args"] = ["--their-arg", str(edit.value)]
    elif edit.kind == "tools_note":
        # A key of theirs inside the `tools` object that our tool toggles rewrite.
        name = pick(ours)
        if name is not None:
            servers[name].setdefault("tools", {})["x-why"] = edit.value
    elif edit.kind == "chmod":
        path.chmod(THEIR_MODES[edit.value % len(THEIR_MODES)])
        return document
    else:
        document["toolBudget"] = edit.value
    path.write_text(json.dumps(document, indent=edit.indent, sort_keys=edit.sort_keys) + "\n")
    # What they wrote, as it reads back (sorted keys and all): from now on, that is the truth.
    written: dict[str, Any] = json.loads(path.read_text())
    return written


def expected_mode(mode: int, edit: External) -> int:
    """The file's mode after their ``edit`` of a file of ``mode``."""
    return THEIR_MODES[edit.value % len(THEIR_MODES)] if edit.kind == "chmod" else mode


# --- our side ---------------------------------------------------------------------------------


def expected_entry(spec: ServerSpec) -> dict[str, Any]:
    """What an ``AddServer`` entry looks like on disk (written out independently of the code)."""
    if isinstance(spec, StdioSpec):
        entry: dict[str, Any] = {"command": spec.command}
        if spec.args:
            entry["args"] = list(spec.args)
        if spec.env:
            entry["env"] = dict(spec.env)
        return entry
    assert isinstance(spec, HttpSpec)
    entry = {"url": spec.url}
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    if spec.transport == "sse":
        entry["type"] = "sse"
    return entry


def our_edit(document: dict[str, Any], edit: ConfigEdit) -> dict[str, Any]:
    """The model of our edits: the document after ``edit``, keys in the order they must have."""
    document = copy.deepcopy(document)
    servers: dict[str, Any] = document["mcpServers"]
    if isinstance(edit, AddServer):
        servers[edit.name] = expected_entry(edit.spec)  # a new key goes last
    elif isinstance(edit, RemoveServer):
        del servers[edit.name]
    elif isinstance(edit, SetServerDisabled):
        if edit.disabled:
            servers[edit.server]["disabled"] = True
        else:
            servers[edit.server].pop("disabled", None)
    else:
        assert isinstance(edit, SetToolEnabled)
        entry = servers[edit.server]
        tools = entry.get("tools", {})
        old = tools.get("exclude", [])
        if edit.enabled:
            exclude = [name for name in old if name != edit.tool]
        else:
            # Off: appended at the end, unless it was already listed (then it keeps its place).
            exclude = list(old) if edit.tool in old else [*old, edit.tool]
        if exclude:
            tools["exclude"] = exclude
        else:
            tools.pop("exclude", None)
        if tools:
            entry["tools"] = tools
        else:
            entry.pop("tools", None)
    return document


specs: st.SearchStrategy[ServerSpec] = st.one_of(
    st.builds(
        StdioSpec,
        command=st.sampled_from(["our-server", "npx"]),
        args=st.lists(st.sampled_from(["-y", "--x", "pkg"]), max_size=2).map(tuple),
        env=st.dictionaries(st.sampled_from(["A", "B"]), st.sampled_from(["1", "2"]), max_size=2),
    ),
    st.builds(
        HttpSpec,
        url=st.sampled_from(["http://127.0.0.1:9/mcp", "https://example.invalid/sse"]),
        headers=st.dictionaries(st.just("Authorization"), st.just("Bearer x"), max_size=1),
        transport=st.sampled_from(["streamable-http", "sse"]),
    ),
)

meddling = st.lists(externals, max_size=2)
"""Their edits made in the middle of one apply: one per attempt, so at most two retries."""


class Interleaving(RuleBasedStateMachine):
    """Both parties editing one file; the model is what the file must hold."""

    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="interleaving-")).resolve()
        self.path = self.directory / "mcp.json"
        self.path.write_text(json.dumps(INITIAL, indent=2) + "\n")
        self.model: dict[str, Any] = copy.deepcopy(INITIAL)
        self.path.chmod(0o644)
        self.mode = 0o644
        self.store = ConfigStore(self.path)

    def teardown(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    def _ours(self) -> list[str]:
        return [name for name in self.model["mcpServers"] if name.startswith("ours")]

    def _apply(self, edit: ConfigEdit, meddle: list[External]) -> None:
        pending = list(meddle)

        def before_replace(target: Path) -> None:
            assert target == self.path
            if pending:
                self._they_edit(target, pending.pop(0))

        self.store._before_replace = before_replace
        config = self.store.apply(edit)
        self.model = our_edit(self.model, edit)
        # The config apply returns is the file as it was written, their edits included.
        assert config == self.store.load()

    @rule(edit=externals)
    def they_edit(self, edit: External) -> None:
        self._they_edit(self.path, edit)

    def _they_edit(self, path: Path, edit: External) -> None:
        self.model = external_edit(path, edit, self.model)
        self.mode = expected_mode(self.mode, edit)

    @precondition(lambda self: len(self._ours()) < len(OUR_NAMES))
    @rule(data=st.data(), spec=specs, meddle=meddling)
    def we_add(self, data: st.DataObject, spec: ServerSpec, meddle: list[External]) -> None:
        name = data.draw(st.sampled_from([n for n in OUR_NAMES if n not in self._ours()]))
        self._apply(AddServer(name, spec), meddle)

    @precondition(lambda self: bool(self._ours()))
    @rule(data=st.data(), meddle=meddling)
    def we_remove(self, data: st.DataObject, meddle: list[External]) -> None:
        name = data.draw(st.sampled_from(self._ours()))
        self._apply(RemoveServer(name), meddle)

    @precondition(lambda self: bool(self._ours()))
    @rule(data=st.data(), tool=st.sampled_from(TOOLS), on=st.booleans(), meddle=meddling)
    def we_toggle_a_tool(
        self, data: st.DataObject, tool: str, on: bool, meddle: list[External]
    ) -> None:
        name = data.draw(st.sampled_from(self._ours()))
        self._apply(SetToolEnabled(name, tool, on), meddle)

    @precondition(lambda self: bool(self._ours()))
    @rule(data=st.data(), disabled=st.booleans(), meddle=meddling)
    def we_disable_a_server(
        self, data: st.DataObject, disabled: bool, meddle: list[External]
    ) -> None:
        name = data.draw(st.sampled_from(self._ours()))
        self._apply(SetServerDisabled(name, disabled), meddle)

    @invariant()
    def the_file_holds_every_edit_of_both_sides(self) -> None:
        assert ordered(json.loads(self.path.read_text())) == ordered(self.model)

    @invariant()
    def the_file_keeps_the_mode_they_gave_it(self) -> None:
        assert stat.S_IMODE(self.path.stat().st_mode) == self.mode

    @invariant()
    def no_temp_file_is_left(self) -> None:
        assert sorted(os.listdir(self.directory)) == ["mcp.json"]


def test_interleaved_edits_of_both_sides_all_survive(monkeypatch: pytest.MonkeyPatch) -> None:
    # Durability is not what this test is about (the crash-safety tests keep the real fsync);
    # without it the run does not depend on how busy the disk is.
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    run_state_machine_as_test(
        Interleaving,
        settings=settings(
            max_examples=50,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


def test_a_broken_file_written_mid_apply_is_left_as_they_wrote_it(tmp_path: Path) -> None:
    """Their half-typed save lands during our apply: we give up rather than overwrite it."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(INITIAL, indent=2) + "\n")
    broken = '{\n  "mcpServers": {\n    "theirs-0": {"command": \n'

    def half_save(target: Path) -> None:
        target.write_text(broken)

    store = ConfigStore(path)
    store._before_replace = half_save
    with pytest.raises(ConfigError, match="invalid JSON") as caught:
        store.apply(SetServerDisabled("ours-0", True))
    assert caught.value.line is not None
    assert path.read_text() == broken
    assert sorted(os.listdir(tmp_path)) == ["mcp.json"]


@pytest.mark.parametrize("change", ["chmod", "chown"])
def test_a_permission_change_made_mid_apply_is_kept(tmp_path: Path, change: str) -> None:
    """They tighten the file's mode or change its owner while we edit. The bytes stay the same,
    so only a re-check of the metadata notices: a temp file made with the mode and owner read
    before would undo their change (and could leave a file with tokens readable by all)."""
    if change == "chown" and os.geteuid() != 0:
        pytest.skip("only root can give a file away")
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(INITIAL, indent=2) + "\n")
    path.chmod(0o644)
    calls: list[Path] = []

    def once(target: Path) -> None:
        if not calls:
            if change == "chmod":
                target.chmod(0o600)
            else:
                os.chown(target, 4321, 4322)
        calls.append(target)

    store = ConfigStore(path)
    store._before_replace = once
    store.apply(SetServerDisabled("ours-0", True))

    info = path.stat()
    if change == "chmod":
        assert stat.S_IMODE(info.st_mode) == 0o600
    else:
        assert (info.st_uid, info.st_gid) == (4321, 4322)
    assert json.loads(path.read_text())["mcpServers"]["ours-0"]["disabled"] is True
    assert len(calls) == 2  # the change was noticed and the edit redone on top of it
