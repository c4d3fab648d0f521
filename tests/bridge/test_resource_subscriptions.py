"""Who holds which resource subscription: the first owner subscribes, the last lets go.

The bookkeeping alone (``ResourceSubscriptions``); the servers' side, both eras, is in
``tests/gateway/host/test_subscriptions.py``.
"""

from __future__ import annotations

from agentty_tui.bridge.resource_subscriptions import (
    MAX_SERVER_SUBSCRIPTIONS,
    ResourceSubscriptions,
)


def test_a_resource_is_held_while_any_owner_holds_it() -> None:
    subscriptions = ResourceSubscriptions()
    one, two = object(), object()
    assert not subscriptions.held("s", "a://1")
    subscriptions.add(one, "s", "a://1")
    subscriptions.add(one, "s", "a://1")  # twice by one owner: one hold
    subscriptions.add(two, "s", "a://1")
    assert subscriptions.held("s", "a://1")
    assert not subscriptions.remove(one, "s", "a://1")  # two still holds it
    assert not subscriptions.remove(one, "s", "a://1")  # one holds it no more: no change
    assert subscriptions.remove(two, "s", "a://1")  # the last one: let the server go
    assert not subscriptions.held("s", "a://1")


def test_an_owner_that_leaves_lets_go_of_what_only_it_held() -> None:
    subscriptions = ResourceSubscriptions()
    leaving, staying = object(), object()
    subscriptions.add(leaving, "s", "a://1")
    subscriptions.add(leaving, "s", "a://2")
    subscriptions.add(leaving, "t", "a://1")
    subscriptions.add(staying, "s", "a://2")
    assert subscriptions.drop(leaving) == (("s", "a://1"), ("t", "a://1"))
    assert subscriptions.uris("s") == ("a://2",)
    assert subscriptions.uris("t") == ()
    assert subscriptions.drop(leaving) == ()


def test_the_uris_of_a_server_are_in_the_order_first_held_and_bounded() -> None:
    subscriptions = ResourceSubscriptions()
    owner = object()
    for number in range(MAX_SERVER_SUBSCRIPTIONS):
        assert subscriptions.room("s")
        subscriptions.add(owner, "s", f"a://{number}")
    assert not subscriptions.room("s")
    assert subscriptions.room("t")
    assert subscriptions.uris("s")[:3] == ("a://0", "a://1", "a://2")
