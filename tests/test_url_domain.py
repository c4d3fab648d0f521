"""A URL a server asks a person to open: cut around its domain as written, and every reason to
doubt it (punycode, mixed scripts, a user part before the domain, no https, not a web page)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.url_domain import UrlParts, domain_warnings, openable, url_parts, url_warnings


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        ("https://example.com/a?b=c", UrlParts("https://", "example.com", "/a?b=c")),
        ("https://Example.COM:8443/", UrlParts("https://", "Example.COM", ":8443/")),
        ("https://bank.com@evil.example/x", UrlParts("https://bank.com@", "evil.example", "/x")),
        ("http://[::1]:80/x", UrlParts("http://[", "::1", "]:80/x")),
        ("javascript:alert(1)", UrlParts("javascript:alert(1)", "", "")),
        ("https://[oops/", UrlParts("https://[oops/", "", "")),
    ],
)
def test_a_url_is_cut_around_its_domain_as_written(url: str, parts: UrlParts) -> None:
    assert url_parts(url) == parts


@given(st.text(max_size=60))
def test_any_string_is_cut_into_parts_that_make_it_again(url: str) -> None:
    assert "".join(url_parts(url)) == url
    url_warnings(url)  # never raises


def test_a_plain_https_page_has_nothing_to_warn_of() -> None:
    assert url_warnings("https://example.org/login?x=1") == []
    assert openable("https://example.org/login?x=1")


def test_every_reason_to_doubt_a_page_is_said() -> None:
    warned = url_warnings("http://paypal.com@xn--pypal-4ve.com/")  # a Cyrillic а
    assert warned[0] == "the domain is written in punycode; it reads 'pаypal.com'"
    assert warned[1] == "the domain mixes scripts (CYRILLIC, LATIN)"
    assert warned[2] == (
        "the URL puts 'paypal.com' before the domain: the page is on 'xn--pypal-4ve.com', not there"
    )
    assert warned[3] == "the page is not on https: what you send it is not encrypted"
    assert domain_warnings("pаypal.com") == ["the domain mixes scripts (CYRILLIC, LATIN)"]


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi", "https:///nohost"]
)
def test_only_web_pages_with_a_host_are_opened(url: str) -> None:
    assert not openable(url)
    assert "this is no http or https page: it is not opened" in url_warnings(url)
