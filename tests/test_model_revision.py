"""``ServerState.revision``: a new state is a new revision, an unchanged one keeps it."""

from __future__ import annotations

from agentty_tui.model import ServerState, ToolState


def _state(**fields: object) -> ServerState:
    return ServerState.model_validate({"name": "s", "status": "connected", **fields})


def test_each_state_built_afresh_has_a_new_and_larger_revision() -> None:
    first, second = _state(), _state()
    assert second.revision > first.revision
    assert first.same_as(second) and first != second  # says the same, is another revision


def test_a_copy_with_changes_is_a_new_revision_and_a_plain_copy_is_not() -> None:
    state = _state(tools=(ToolState(bare="a", enabled=True),))
    assert state.model_copy().revision == state.revision
    changed = state.model_copy(update={"status": "failed"})
    assert changed.revision > state.revision and not changed.same_as(state)
    pinned = state.model_copy(update={"status": "failed", "revision": state.revision})
    assert pinned.revision == state.revision


def test_same_as_looks_at_every_field_but_the_revision() -> None:
    state = _state(tools=(ToolState(bare="a", enabled=True),))
    assert state.same_as(_state(tools=(ToolState(bare="a", enabled=True),)))
    assert not state.same_as(_state(tools=(ToolState(bare="a", enabled=False),)))
    assert not state.same_as(_state(tools=(ToolState(bare="a", enabled=True),), pid=7))
