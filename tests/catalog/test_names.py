"""Wire names: provider-safe, capped, collision-free, order independent and resolvable."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.catalog import (
    MAX_WIRE_NAME_LENGTH,
    ToolRef,
    WireNames,
    allocate_wire_names,
    identity_digest,
    is_provider_safe,
    qualified_name,
    sanitize,
)
from agentty_tui.catalog.allocation import server_digest
from agentty_tui.errors import UnknownToolError

PROVIDER_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def wire(server: str, tool: str, *others: tuple[str, str], reserved: tuple[str, ...] = ()) -> str:
    """The wire name of (server, tool) when allocated together with ``others``."""
    return allocate_wire_names([(server, tool), *others], reserved).wire(server, tool)


def assert_well_formed(names: WireNames, reserved: tuple[str, ...] = ()) -> None:
    wires = [w for _, w in names.items()]
    assert len(set(wires)) == len(wires)
    for ref, w in names.items():
        assert PROVIDER_RE.fullmatch(w), w  # fullmatch: no trailing newline either
        assert w not in reserved
        assert names.resolve(w) == ref


# --- sanitizing -------------------------------------------------------------------------


def test_plain_names_are_the_qualified_name() -> None:
    assert wire("github", "create_issue") == "mcp__github__create_issue"
    assert wire("my-srv", "Tool-1") == "mcp__my-srv__Tool-1"


def test_dots_spaces_and_unicode_become_underscores() -> None:
    assert wire("my server", "files.read") == "mcp__my_server__files_read"
    assert wire("café", "naïve.tool") == "mcp__caf___na_ve_tool"
    assert wire("srv", "emoji🎉x") == "mcp__srv__emoji_x"  # one code point, one underscore
    assert wire("a/b\\c", "t:1\n") == "mcp__a_b_c__t_1_"
    assert sanitize("a.b c") == "a_b_c"
    assert qualified_name("s.1", "t") == "mcp__s_1__t"


def test_is_provider_safe() -> None:
    assert is_provider_safe("a")
    assert is_provider_safe("A-z_0" * 12 + "abcd")  # exactly 64
    assert not is_provider_safe("a" * 65)
    assert not is_provider_safe("")
    assert not is_provider_safe("a.b")
    assert not is_provider_safe("abc\n")  # the trailing-newline trap of ``$``
    assert not is_provider_safe("é")


# --- the 64-character cap ---------------------------------------------------------------


def test_long_names_are_cut_with_a_hash_suffix() -> None:
    tool = "x" * 100
    name = wire("srv", tool)
    assert len(name) == MAX_WIRE_NAME_LENGTH
    digest = identity_digest("srv", tool)
    assert name == qualified_name("srv", tool)[:55] + "_" + digest[:8]


def test_a_name_of_exactly_64_is_kept() -> None:
    tool = "t" * (64 - len("mcp__srv__"))
    assert wire("srv", tool) == f"mcp__srv__{tool}"
    assert len(wire("srv", tool + "u")) == 64
    assert wire("srv", tool + "u") != f"mcp__srv__{tool}"


def test_long_names_sharing_a_prefix_stay_distinct() -> None:
    stem = "a" * 60
    identities = [("srv", f"{stem}.{suffix}") for suffix in ("one", "two", "three", "x" * 60)]
    names = allocate_wire_names(identities)
    assert len({w for _, w in names.items()}) == len(identities)
    assert_well_formed(names)


def test_a_long_server_is_shortened_first_and_the_tool_keeps_its_name() -> None:
    """Issue 24: a 66-character server used to leave no trace of the tool's own name; the
    server part is now cut, with a hash of the whole server name, and every tool of that
    server shares the stem."""
    server = "a-server-with-a-really-quite-extraordinarily-long-name-for-its-tools"
    names = allocate_wire_names([(server, "search_issues"), (server, "create_issue")])
    stem = f"_{server_digest(server)[:8]}__"
    for tool in ("search_issues", "create_issue"):
        name = names.wire(server, tool)
        assert len(name) == MAX_WIRE_NAME_LENGTH
        assert name.startswith("mcp__a-server-with") and name.endswith(stem + tool), name
    assert_well_formed(names)


def test_determinism_is_pinned() -> None:
    # Computed once (sha256 checked with sha256sum). A change here changes every wire name
    # users and transcripts have seen: make it on purpose or not at all.
    assert identity_digest("a", "b.c").startswith("ad8a94abc87476f9")
    assert wire("srv", "x" * 100) == "mcp__srv__" + "x" * 45 + "_d7bbf552"
    assert wire("a", "b.c", ("a", "b_c")) == "mcp__a_ad8a94ab__b_c"
    assert wire("a", "b_c", ("a", "b.c")) == "mcp__a_662f0bbb__b_c"
    long_server = "s" * 70
    assert wire(long_server, "t") == "mcp__" + "s" * 47 + f"_{server_digest(long_server)[:8]}__t"


# --- collisions -------------------------------------------------------------------------


def test_colliding_identities_are_all_suffixed() -> None:
    names = allocate_wire_names([("a", "b.c"), ("a", "b_c"), ("a", "other")])
    dotted, underscored = names.wire("a", "b.c"), names.wire("a", "b_c")
    assert dotted != underscored
    assert dotted.endswith("__b_c") and underscored.endswith("__b_c")  # the tool's name kept
    assert dotted == f"mcp__a_{identity_digest('a', 'b.c')[:8]}__b_c"
    assert names.wire("a", "other") == "mcp__a__other"  # bystanders keep their plain name
    assert_well_formed(names)


def test_collisions_across_servers() -> None:
    # "mcp__a.b__c" and "mcp__a__b.c" are different identities with one sanitized name.
    names = allocate_wire_names([("a.b", "c"), ("a_b", "c"), ("a", "b__c")])
    assert len({w for _, w in names.items()}) == 3
    assert_well_formed(names)


def test_names_do_not_depend_on_input_order() -> None:
    identities = [
        ("a", "b.c"),
        ("a", "b_c"),
        ("a", "b-c"),
        ("s", "t" * 80),
        ("s", "t" * 81),
        ("x y", "z"),
        ("x_y", "z"),
        ("plain", "tool"),
    ]
    expected = dict(allocate_wire_names(identities).items())
    rng = random.Random(1234)
    for _ in range(20):
        shuffled = identities[:]
        rng.shuffle(shuffled)
        assert dict(allocate_wire_names(shuffled).items()) == expected


def test_native_names_are_reserved() -> None:
    names = allocate_wire_names([("s", "t"), ("s", "u")], reserved=["mcp__s__t", "read_file"])
    assert names.wire("s", "t") == f"mcp__s_{identity_digest('s', 't')[:8]}__t"
    assert names.wire("s", "u") == "mcp__s__u"
    assert "mcp__s__t" not in names
    assert_well_formed(names, reserved=("mcp__s__t",))


def test_a_suffixed_name_that_still_clashes_grows_its_hash() -> None:
    # ("a", "b.c") collides with ("a", "b_c") and becomes mcp__a_<8 hex>__b_c; a second server
    # is literally called "a_<those 8 hex>". All three must end up distinct, whatever the order.
    digest = identity_digest("a", "b.c")
    trap = f"a_{digest[:8]}"
    identities = [("a", "b.c"), ("a", "b_c"), (trap, "b_c")]
    names = allocate_wire_names(identities)
    assert names.wire("a", "b.c") == f"mcp__a_{digest[:9]}__b_c"
    assert names.wire(trap, "b_c") == f"mcp__{trap}_{identity_digest(trap, 'b_c')[:8]}__b_c"
    assert_well_formed(names)
    assert dict(allocate_wire_names(identities[::-1]).items()) == dict(names.items())


def test_a_suffixed_name_equal_to_a_reserved_name_grows_its_hash() -> None:
    digest = identity_digest("s", "t")
    taken = f"mcp__s_{digest[:8]}__t"
    names = allocate_wire_names([("s", "t")], reserved=["mcp__s__t", taken])
    assert names.wire("s", "t") == f"mcp__s_{digest[:9]}__t"


def test_duplicate_identities_are_allocated_once() -> None:
    names = allocate_wire_names([("s", "t"), ("s", "t")])
    assert len(names) == 1
    assert names.wire("s", "t") == "mcp__s__t"


# --- resolving --------------------------------------------------------------------------


def test_resolve_round_trips_and_rejects_unknown_names() -> None:
    identities = [("a", "b.c"), ("a", "b_c"), ("srv", "x" * 120), ("g", "h")]
    names = allocate_wire_names(identities)
    for server, tool in identities:
        ref = names.resolve(names.wire(server, tool))
        assert ref == ToolRef(server, tool)
        assert (ref.server, ref.tool) == (server, tool)
    with pytest.raises(UnknownToolError):
        names.resolve("mcp__a__b_c")  # the unsuffixed form was never handed out
    with pytest.raises(UnknownToolError):
        names.wire("g", "nope")
    assert names.get("nope") is None
    assert list(names) == [ToolRef(s, t) for s, t in identities]


def test_wire_names_are_immutable() -> None:
    names = allocate_wire_names([("s", "t")])
    with pytest.raises(AttributeError):
        names._by_ref = {}
    with pytest.raises(TypeError):
        names.by_identity[ToolRef("s", "u")] = "x"  # type: ignore[index]


# --- property ---------------------------------------------------------------------------

_names = st.text(max_size=140)
_near_collisions = st.sampled_from(["a.b", "a_b", "a b", "a-b", "", ".", "é", "x" * 70])


@settings(max_examples=200, deadline=None)
@given(
    identities=st.lists(
        st.tuples(st.one_of(_names, _near_collisions), st.one_of(_names, _near_collisions)),
        max_size=25,
    ),
    reserved=st.lists(st.sampled_from(["mcp__a_b__a_b", "mcp____", "read_file"]), max_size=3),
    seed=st.integers(0, 2**32),
)
def test_every_name_is_provider_safe_distinct_and_order_independent(
    identities: list[tuple[str, str]], reserved: list[str], seed: int
) -> None:
    names = allocate_wire_names(identities, reserved)
    assert len(names) == len(set(identities))
    assert_well_formed(names, tuple(reserved))
    for ref, name in names.items():
        tool = sanitize(ref.tool)
        # Room for the prefix, one character of the server and a hash that grew on a clash.
        if len(f"mcp__s_{'0' * 12}__{tool}") <= MAX_WIRE_NAME_LENGTH:
            assert name.endswith(f"__{tool}"), (ref, name)  # the tool's own name, whole
    shuffled = identities[:]
    random.Random(seed).shuffle(shuffled)
    assert dict(allocate_wire_names(shuffled, reserved[::-1]).items()) == dict(names.items())
