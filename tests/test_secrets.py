"""Masking: URL credentials hidden, the rest of the URL as written; a Redactor scrubs text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentty_tui.secrets import (
    Redactor,
    is_credential_name,
    mask_keeping_references,
    mask_url,
    mask_urls,
    url_credentials,
)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
        ("http://user:pw123@h/mcp", "http://••••:•••••@h/mcp"),
        ("https://ghp_TOKEN@h/mcp", "https://••••••••@h/mcp"),  # a token as the user name
        ("http://u:p@ss@h:1/x", "http://•:••••@h:1/x"),  # an unescaped "@" in the password
        ("http://h/mcp?token=tok456&x=1", "http://h/mcp?token=••••••&x=1"),
        ("http://h/?API_KEY=k&Signature=s;sig=t", "http://h/?API_KEY=•&Signature=•;sig=•"),
        ("http://h/?client_secret=abc&my-token=d", "http://h/?client_secret=•••&my-token=•"),
        ("http://h/?apikey=a&auth=b&password=c", "http://h/?apikey=•&auth=•&password=•"),
        ("http://h/?keyboard=1&monkey=2&x_key=3", "http://h/?keyboard=1&monkey=2&x_key=•"),
        ("http://h/cb#access_token=abcd&state=1", "http://h/cb#access_token=••••&state=1"),
        ("http://h/?api%5Fkey=zz", "http://h/?api%5Fkey=••"),  # a percent-encoded name
        # References are not secrets yet: the template is shown as written.
        ("http://${USER}:${PASS}@h/?token=${TOKEN}", "http://${USER}:${PASS}@h/?token=${TOKEN}"),
        ("http://h/?token=${T:-fallback}", "http://h/?token=••••••••"),  # a default may be one
        ("not a url at all?token=x", "not a url at all?token=•"),
    ],
)
def test_mask_url(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_credential_names() -> None:
    for name in ("token", "KEY", "Api_Key", "access_token", "sig", "signature", "x_secret"):
        assert is_credential_name(name), name
    for name in ("x", "keys", "tokens", "monkey", "page", "signal"):
        assert not is_credential_name(name), name


def test_url_credentials_are_given_as_written_and_decoded() -> None:
    assert url_credentials("http://u:p%40ss@h/x?token=a%2Bb&x=1") == (
        "u",
        "p%40ss",
        "p@ss",
        "a%2Bb",
        "a+b",
    )


def test_redactor_replaces_longest_first_and_skips_tiny_values() -> None:
    redactor = Redactor.of(
        [("abc", "${A}"), ("abcdef", "${AB}"), ("1", "${ONE}"), ("same", "same")]
    )
    assert redactor.scrub("x abcdef y abc z 1") == "x ${AB} y ${A} z 1"
    assert Redactor().scrub("abc") == "abc"


_CREDENTIAL = st.sampled_from(
    ["token", "key", "api_key", "apikey", "access_token", "secret", "password", "sig", "Auth"]
)
_SECRET = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=20)
_PLAIN = st.text(st.characters(codec="ascii", categories=["Ll", "N"]), min_size=1, max_size=20)
"""A value that is no credential: without the marker ``S`` the secrets are planted behind, so
it can never hold one of them (``other='S0'`` beside ``value='0'`` did)."""


@given(user=_SECRET, password=_SECRET, name=_CREDENTIAL, value=_SECRET, other=_PLAIN)
def test_no_credential_survives_masking(
    user: str, password: str, name: str, value: str, other: str
) -> None:
    # Planted behind a marker no other part of the URL holds, so a hit is a leak.
    url = f"https://S{user}:S{password}@example.org/p?q={other}&{name}=S{value}&z=2"
    shown = mask_url(url)
    for secret in (f"S{user}", f"S{password}", f"S{value}"):
        assert secret not in shown
    assert shown.endswith(f"/p?q={other}&{name}={'•' * min(len(value) + 1, 8)}&z=2")


def test_a_value_shown_by_its_references_masks_every_literal_word_and_default() -> None:
    """What the trust prompt shows of an env or header value: the ``${VAR}`` it sends, never
    a literal secret (an auth scheme word kept where asked), nor a reference's default."""
    bearer = {"bearer"}
    assert mask_keeping_references("Bearer ${GITHUB_TOKEN}", keep_words=bearer) == (
        "Bearer ${GITHUB_TOKEN}"
    )
    assert mask_keeping_references("Bearer ghp_s3cret", keep_words=bearer) == "Bearer ••••••••"
    assert mask_keeping_references("Bearer ghp_s3cret") == "•••••• ••••••••"
    assert mask_keeping_references("${TOKEN:-s3cret}") == "${TOKEN:-••••••}"
    assert mask_keeping_references("") == ""


def test_every_url_in_free_text_is_masked_and_the_rest_kept() -> None:
    # As the mcp SDK words a resource mismatch, and as httpx quotes a URL: the one rule applies
    # to each URL, wherever it begins and however it is quoted.
    text = (
        "Protected resource http://127.0.0.1:9/mcp does not match expected "
        "http://user:pw-secret@127.0.0.1:9/mcp?token=tok-secret; "
        "for url 'https://a:b-pass@h/x?sig=abc&x=1' (<ws://h/?key=k3y>)"
    )
    assert mask_urls(text) == (
        "Protected resource http://127.0.0.1:9/mcp does not match expected "
        "http://••••:••••••••@127.0.0.1:9/mcp?token=••••••••; "
        "for url 'https://•:••••••@h/x?sig=•••&x=1' (<ws://h/?key=•••>)"
    )
    assert mask_urls("no address here, key=value") == "no address here, key=value"
    assert mask_urls(mask_urls(text)) == mask_urls(text)  # masking twice changes nothing
