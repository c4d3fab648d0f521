"""The gateway URI of a server's resource: deterministic, readable, read back to its server."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.gateway.host.resources import gateway_uri, parse_gateway_uri

names = st.text(min_size=1, max_size=40)
uris = st.text(min_size=1, max_size=80)


def test_the_own_uri_stays_readable() -> None:
    assert gateway_uri("docs", "file:///home/a/README.md") == (
        "agentty://docs/file:///home/a/README.md"
    )
    assert gateway_uri("my/server", "memo://x") == "agentty://my%2Fserver/memo://x"
    assert parse_gateway_uri("agentty://my%2Fserver/memo://x") == ("my/server", "memo://x")


def test_what_is_no_gateway_uri_is_none() -> None:
    for uri in ("memo://x", "agentty://", "agentty://docs", "agentty://docs/", "agentty:///x"):
        assert parse_gateway_uri(uri) is None


@given(names, uris)
def test_every_server_and_uri_is_read_back(server: str, uri: str) -> None:
    assert parse_gateway_uri(gateway_uri(server, uri)) == (server, uri)


@given(names, uris, names, uris)
def test_distinct_pairs_get_distinct_uris(a: str, x: str, b: str, y: str) -> None:
    if (a, x) != (b, y):
        assert gateway_uri(a, x) != gateway_uri(b, y)
