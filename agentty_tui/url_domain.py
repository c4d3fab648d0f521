"""What a person should see of a URL a server asks them to open: its domain, and why to doubt it.

A server's URL request (elicitation, URL mode) names a page to open in a browser: a sign-in, a
payment. Whoever shows it (``call`` on a terminal, the picker's dialog) shows the whole URL with
its domain set apart (``url_parts``), and the warnings of ``url_warnings``: a domain in punycode
or mixing scripts (``gооgle.com`` with Cyrillic o's), a user part that puts another name before
the real domain (``https://bank.com@evil.example``), a page not on ``https``. Only ``http`` and
``https`` pages are ever opened (``openable``); nothing here fetches anything.
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple
from urllib.parse import urlsplit

from agentty_tui.terminal_text import safe_line

__all__ = ["UrlParts", "domain_warnings", "openable", "url_parts", "url_warnings"]

OPENABLE_SCHEMES = frozenset({"http", "https"})
"""The only kinds of URL opened in a browser (never ``javascript:``, ``file:``, ``data:``)."""


class UrlParts(NamedTuple):
    """A URL cut around its domain, as written: ``before + host + after`` is the URL."""

    before: str
    """The scheme, ``//`` and any user part (``https://bank.com@``)."""
    host: str
    """The domain (or address) the page is on, as the URL writes it."""
    after: str
    """The port, path, query and fragment."""


def url_parts(url: str) -> UrlParts:
    """``url`` cut around its host; no host (or a URL that does not parse): all in ``before``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # a server's string: an unbalanced "[" and the like
        return UrlParts(url, "", "")
    if not host or not parts.netloc:
        return UrlParts(url, "", "")
    start = url.find(parts.netloc)
    if start < 0:
        return UrlParts(url, "", "")
    user, at, rest = parts.netloc.rpartition("@")
    offset = start + len(user) + len(at)
    if rest.startswith("["):  # an IPv6 address: the brackets stay outside
        close = rest.find("]")
        written = rest[1:close] if close > 0 else rest[1:]
        offset += 1
    else:
        written = rest.partition(":")[0]
    end = offset + len(written)
    return UrlParts(url[:offset], url[offset:end], url[end:])


def domain_warnings(host: str) -> list[str]:
    """What should make a person look twice at ``host``: punycode labels (shown decoded) and
    letters of more than one script."""
    warnings: list[str] = []
    labels = host.split(".")
    if any(label.lower().startswith("xn--") for label in labels):
        try:
            shown = host.encode("ascii").decode("idna")
        except UnicodeError:
            shown = host
        warnings.append(f"the domain is written in punycode; it reads {safe_line(shown)!r}")
    else:
        shown = host
    scripts = {unicodedata.name(char, "UNKNOWN").split(" ")[0] for char in shown if char.isalpha()}
    if len(scripts) > 1:
        warnings.append(f"the domain mixes scripts ({', '.join(sorted(scripts))})")
    return warnings


def openable(url: str) -> bool:
    """Whether ``url`` may be opened in a browser at all: an ``http`` or ``https`` page with
    a host."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in OPENABLE_SCHEMES and bool(parts.hostname)


def url_warnings(url: str) -> list[str]:
    """Everything about ``url`` to warn a person of before they open it (the domain's
    warnings first)."""
    parts = url_parts(url)
    warnings = domain_warnings(parts.host)
    if "@" in parts.before:
        user = parts.before.partition("//")[2].rpartition("@")[0]
        warnings.append(
            f"the URL puts {safe_line(user)!r} before the domain: the page is on "
            f"{safe_line(parts.host)!r}, not there"
        )
    if not openable(url):
        warnings.append("this is no http or https page: it is not opened")
    elif urlsplit(url).scheme.lower() != "https":
        warnings.append("the page is not on https: what you send it is not encrypted")
    return warnings
