"""Masking of secret values (env values, HTTP headers, URL credentials) wherever they are shown.

``mask_value`` hides a value that is secret as a whole, ``mask_url`` the parts of a URL that are
credentials (the one rule for URLs: ``mask_urls`` applies it to every URL quoted in free text,
such as an exception's message or a log record), and a ``Redactor`` removes known secret values
from free text (exception messages, a server's stderr) before that text is shown or logged.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = [
    "MIN_REDACTED_LENGTH",
    "Redactor",
    "is_credential_name",
    "mask_keeping_references",
    "mask_url",
    "mask_urls",
    "mask_value",
    "masked_command_line",
    "url_credentials",
]

_CREDENTIAL_NAMES = frozenset(
    {
        "token",
        "key",
        "api_key",
        "apikey",
        "access_token",
        "secret",
        "password",
        "passwd",
        "sig",
        "signature",
        "auth",
    }
)
_CREDENTIAL_SUFFIXES = ("_token", "_key", "_secret", "-token", "-key", "-secret")

# Scheme, then the authority's userinfo: everything before the last "@" ahead of the path.
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#]*)@")
# One name=value pair of a query or fragment; the separators are kept as they were.
_PAIR = re.compile(r"(?P<sep>[?&;#])(?P<name>[^=&;#]*)=(?P<value>[^&;#]*)")
# A URL quoted in free text: a scheme, "://" and everything up to a space, a quote or a bracket
# that commonly closes a quotation (``for url 'http://…'``, ``<http://…>``), less the punctuation
# of the sentence around it (``… to http://h/?key=${KEY}: refused``).
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]*[^\s'\"<>`.,;:!?)\]]")
# A value that only refers to variables (``${TOKEN}``) holds no secret yet; a default might.
_ONLY_REFERENCES = re.compile(r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+")
# One reference, with its default if it has one (``${TOKEN:-s3cret}``): the default is text.
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}")

MIN_REDACTED_LENGTH = 3
"""Shorter values are not redacted from text: replacing every ``1`` in a message would garble
it, and a value that short hides nothing."""


def mask_value(value: str) -> str:
    """A value as it may be shown: never the value itself, only a hint of its length."""
    if not value:
        return ""
    return "•" * min(len(value), 8)


def is_credential_name(name: str) -> bool:
    """Whether a query parameter called ``name`` looks like it carries a credential."""
    lowered = unquote(name).strip().lower()
    return lowered in _CREDENTIAL_NAMES or lowered.endswith(_CREDENTIAL_SUFFIXES)


def _mask_part(value: str) -> str:
    return value if _ONLY_REFERENCES.fullmatch(value) else mask_value(value)


def mask_url(url: str) -> str:
    """``url`` as it may be shown: userinfo and credential-like query values masked.

    Works on text rather than a parsed URL, so that a template (``http://${HOST}/mcp``) or a URL
    no parser accepts is masked just the same, and everything else is shown as written.
    """

    def userinfo(match: re.Match[str]) -> str:
        user, colon, password = match.group("userinfo").partition(":")
        masked = _mask_part(user) + (colon + _mask_part(password) if colon else "")
        return f"{match.group('scheme')}{masked}@"

    def pair(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        if not is_credential_name(name):
            return match.group(0)
        return f"{match.group('sep')}{name}={_mask_part(value)}"

    return _PAIR.sub(pair, _USERINFO.sub(userinfo, url, count=1))


def mask_keeping_references(value: str, *, keep_words: Collection[str] = ()) -> str:
    """``value`` as it may be shown when its text may be a secret: each ``${VAR}`` reference as
    written (what it sends is named, never its value; a ``:-default`` is masked), every other
    word masked, but for the words of ``keep_words`` (lower case: ``bearer`` of
    ``Bearer ${TOKEN}``), which say how a secret is sent rather than what it is."""
    shown: list[str] = []
    at = 0
    for match in _REFERENCE.finditer(value):
        shown.append(_mask_words(value[at : match.start()], keep_words))
        default = match.group("default")
        if default is None:
            shown.append(match.group(0))
        else:
            shown.append(f"${{{match.group('name')}:-{mask_value(default)}}}")
        at = match.end()
    shown.append(_mask_words(value[at:], keep_words))
    return "".join(shown)


def _mask_words(text: str, keep_words: Collection[str]) -> str:
    """Each word of ``text`` masked unless it is one of ``keep_words``; spaces kept."""
    return "".join(
        part if part.isspace() or part.lower() in keep_words else mask_value(part)
        for part in re.split(r"(\s+)", text)
    )


def mask_urls(text: str) -> str:
    """``text`` with every URL in it masked by ``mask_url``: for free text that may quote a URL
    (an exception's message, an SDK's log record), where nothing says where a URL begins."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda match: mask_url(match.group(0)), text)


def masked_command_line(command: str, args: Iterable[str]) -> str:
    """A command line as a shell would read it, each URL among its arguments masked
    (``mcp-remote https://h/mcp?token=…``), for every place that shows what a server runs."""
    return shlex.join([command, *map(mask_url, args)])


def url_credentials(url: str) -> tuple[str, ...]:
    """The credential parts of ``url`` (userinfo, credential-like query values), as written
    and percent-decoded: what a ``Redactor`` must remove from text that might quote the URL."""
    found: list[str] = []
    match = _USERINFO.match(url)
    if match:
        user, _, password = match.group("userinfo").partition(":")
        found += [user, password]
    found += [m.group("value") for m in _PAIR.finditer(url) if is_credential_name(m.group("name"))]
    return tuple(dict.fromkeys(form for part in found for form in (part, unquote(part)) if form))


@dataclass(frozen=True, slots=True)
class Redactor:
    """Replaces known secret values in free text with what may be shown in their place."""

    replacements: tuple[tuple[str, str], ...] = ()
    """(secret, shown instead) pairs, longest secret first, so a value that contains another
    one is replaced as a whole."""

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> Redactor:
        """A redactor for ``pairs``; values shorter than ``MIN_REDACTED_LENGTH`` are left out."""
        table: dict[str, str] = {}
        for secret, shown in pairs:
            if len(secret) >= MIN_REDACTED_LENGTH and secret != shown:
                table.setdefault(secret, shown)
        ordered = sorted(table.items(), key=lambda item: len(item[0]), reverse=True)
        return cls(tuple(ordered))

    def scrub(self, text: str) -> str:
        """``text`` with every occurrence of every secret replaced."""
        if not self.replacements or not text:
            return text
        pattern = re.compile("|".join(re.escape(secret) for secret, _ in self.replacements))
        table = dict(self.replacements)
        return pattern.sub(lambda match: table[match.group(0)], text)
