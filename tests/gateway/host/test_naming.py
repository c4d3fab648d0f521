"""Gateway tool names: ``<server>__<tool>`` within the room a host's prefix leaves."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentty_tui.catalog import ToolRef
from agentty_tui.gateway.host.naming import (
    GATEWAY_NAME_LIMIT,
    HOST_PREFIX,
    gateway_names,
    plain_gateway_name,
)

SAFE = re.compile(r"[A-Za-z0-9_-]+")

names_text = st.text(alphabet=st.sampled_from("abcXYZ019_-.é/ "), min_size=1, max_size=90)
refs = st.lists(st.tuples(names_text, names_text), max_size=25)


def test_the_host_prefix_and_a_name_fit_what_providers_accept() -> None:
    assert len(HOST_PREFIX) + GATEWAY_NAME_LIMIT == 64


def test_a_name_that_fits_is_the_plain_one() -> None:
    names = gateway_names([ToolRef("notes", "add_note"), ToolRef("my.server", "get.thing")])
    assert names.wire("notes", "add_note") == "notes__add_note"
    assert names.wire("my.server", "get.thing") == "my_server__get_thing"
    assert plain_gateway_name("a b", "c") == "a_b__c"


def test_a_long_server_name_is_cut_and_the_tool_keeps_its_own_name() -> None:
    server = "a-very-long-server-name-that-someone-typed-into-their-config"
    name = gateway_names([ToolRef(server, "search_issues")]).wire(server, "search_issues")
    assert len(name) == GATEWAY_NAME_LIMIT
    assert name.endswith("__search_issues")
    assert name.startswith("a-very-long-server")
    assert re.fullmatch(r"[A-Za-z0-9-]+_[0-9a-f]{8}__search_issues", name)


def test_a_tool_name_too_long_to_keep_is_cut_with_a_suffix() -> None:
    tool = "t" * 70
    name = gateway_names([ToolRef("srv", tool)]).wire("srv", tool)
    assert len(name) == GATEWAY_NAME_LIMIT
    assert name.startswith("srv__ttt")
    assert re.fullmatch(r"srv__t+_[0-9a-f]{8}", name)


def test_two_tools_that_sanitize_alike_both_get_suffixes() -> None:
    names = gateway_names([ToolRef("s", "a.b"), ToolRef("s", "a_b"), ToolRef("s", "c")])
    dotted, underscored = names.wire("s", "a.b"), names.wire("s", "a_b")
    assert dotted != underscored
    assert dotted.endswith("__a_b") and underscored.endswith("__a_b")
    assert names.wire("s", "c") == "s__c"  # not part of the clash: plain


def test_a_reserved_name_is_never_given() -> None:
    names = gateway_names([ToolRef("s", "t")], reserved={"s__t"})
    assert names.wire("s", "t") != "s__t"


@settings(max_examples=300)
@given(refs)
def test_names_are_safe_distinct_resolvable_and_independent_of_order(
    pairs: list[tuple[str, str]],
) -> None:
    names = gateway_names(ToolRef(*pair) for pair in pairs)
    unique = set(map(lambda pair: ToolRef(*pair), pairs))
    assert len(names) == len(unique)
    assert len(set(names.by_wire)) == len(unique)
    for ref in unique:
        name = names.wire(*ref)
        assert SAFE.fullmatch(name) and len(name) <= GATEWAY_NAME_LIMIT
        assert names.resolve(name) == ref
        assert len(HOST_PREFIX + name) <= 64
        plain = plain_gateway_name(*ref)
        if len(plain) <= GATEWAY_NAME_LIMIT and not any(
            plain_gateway_name(*other) == plain for other in unique if other != ref
        ):
            assert name == plain
        tool = re.sub(r"[^A-Za-z0-9_-]", "_", ref.tool)
        if len(tool) <= GATEWAY_NAME_LIMIT - len("x_12345678__"):
            assert name.endswith(f"__{tool}")  # the tool's own name, whole
    shuffled = list(pairs)
    random.Random(len(pairs)).shuffle(shuffled)
    assert dict(gateway_names(ToolRef(*p) for p in shuffled).items()) == dict(names.items())
