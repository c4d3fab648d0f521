"""``call`` answers a server's form or URL request on the terminal, when there is one.

A form (``elicitation/create``, form mode) is asked field by field on stderr, read from stdin:
the server's message first, then accept, decline or cancel; each field with its kind, its
default in brackets (enter takes it) and ``-`` to leave an optional one out; a value that does
not fit says why and asks again; the answer is shown before it is sent. A URL request shows
the whole URL with its domain apart, warns when the domain is punycode or mixes scripts, and
opens the page only when the person says yes (``url_domain``: its warnings, and only ``http``
and ``https`` pages are opened); it is never fetched here.

A call the server refuses with ``-32042`` (URL elicitation required) names the pages to open
before calling again: on a terminal each is shown the same way and opened on a yes
(``open_pages_first``); without one they are listed for the person to open (``pages_text``).

Everything the server sent is shown with its controls made visible (``safe_line``). The
prompts run in a worker thread so the connection stays served while the person types.
"""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Callable
from typing import TextIO

import anyio.to_thread
import mcp_types as types
from mcp.client.session import ClientRequestContext

from agentty_tui.elicit_form import Answer, FieldError, FormField, form_fields
from agentty_tui.terminal_text import safe_line
from agentty_tui.url_domain import openable, url_parts, url_warnings

__all__ = ["MAX_PAGES_SHOWN", "TerminalAsker", "pages_text"]

MAX_PAGES_SHOWN = 8
"""The most pages of one ``-32042`` error shown (a server may name many): the rest are counted."""

ReadLine = Callable[[], str]
"""Reads one line the person typed (without its end); ``EOFError`` when input ended."""


class TerminalAsker:
    """Answers one server's forms and URL requests by asking on a terminal."""

    def __init__(
        self,
        server: str,
        *,
        out: TextIO | None = None,
        read_line: ReadLine | None = None,
        open_url: Callable[[str], bool] = webbrowser.open,
    ) -> None:
        """``server``: whose requests (named in every question); ``out`` and ``read_line``:
        where questions go and answers come from (stderr and stdin by default);
        ``open_url``: how a page the person agreed to is opened."""
        self._server = server
        self._out = out
        self._read_line = read_line or (lambda: input())
        self._open_url = open_url

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """The SDK's elicitation callback: ask in a worker thread, answer what was said."""
        return await anyio.to_thread.run_sync(self.ask, params, abandon_on_cancel=True)

    def ask(self, params: types.ElicitRequestParams) -> types.ElicitResult:
        """Ask about one request and return the answer (input that ends is a cancel)."""
        try:
            if isinstance(params, types.ElicitRequestURLParams):
                return self._ask_url(params)
            return self._ask_form(params)
        except EOFError:
            self._say("(input ended: the request is cancelled)")
            return types.ElicitResult(action="cancel")

    # --- talking -----------------------------------------------------------------------

    def _say(self, text: str) -> None:
        out = self._out or sys.stderr
        out.write(text + "\n")
        out.flush()

    def _question(self, text: str) -> str:
        out = self._out or sys.stderr
        out.write(text)
        out.flush()
        return self._read_line().strip()

    # --- a form ------------------------------------------------------------------------

    def _ask_form(self, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        fields = form_fields(params.requested_schema)
        self._say(f"server {safe_line(self._server)!r} asks: {safe_line(params.message)}")
        if fields:
            self._say(
                f"  a form of {len(fields)} field(s): enter takes the default in [brackets], "
                '"-" leaves an optional field out'
            )
        choice = self._question("Fill it in? [Y]es / [n]o, decline / [c]ancel: ").lower()
        if choice in ("n", "no"):
            return types.ElicitResult(action="decline")
        if choice in ("c", "cancel"):
            return types.ElicitResult(action="cancel")
        answer: dict[str, Answer] = {}
        for field in fields:
            value = self._ask_field(field)
            if value is not None:
                answer[field.name] = value
        shown = ", ".join(f"{safe_line(name)}={safe_line(repr(v))}" for name, v in answer.items())
        self._say(f"  the answer: {shown or 'no fields'}")
        if self._question("Send it? [Y]es / [n]o, decline: ").lower() in ("n", "no"):
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=answer)

    def _ask_field(self, field: FormField) -> Answer | None:
        for number, (value, label) in enumerate(field.options, start=1):
            extra = f" ({safe_line(value)})" if label != value else ""
            self._say(f"    {number}. {safe_line(label)}{extra}")
        about = f" - {safe_line(field.description)}" if field.description else ""
        need = "required" if field.required else "optional"
        default = "" if field.default is None else f" [{_shown(field.default)}]"
        prompt = f"{safe_line(field.title)}{about} ({field.hint()}, {need}){default}: "
        while True:
            text = self._question(prompt)
            if not text:
                if field.default is not None:
                    return field.default
                if not field.required:
                    return None
                self._say("  this field is required")
                continue
            if text == "-" and not field.required:
                return None
            try:
                return field.parse(text)
            except FieldError as exc:
                self._say(f"  {safe_line(str(exc))}")

    # --- a URL -------------------------------------------------------------------------

    def open_pages_first(self, tool: str, pages: list[types.ElicitRequestURLParams]) -> int:
        """A call of ``tool`` was refused until ``pages`` are opened (``-32042``): show each
        (at most ``MAX_PAGES_SHOWN``) and open it on a yes; how many were opened."""
        count = len(pages)
        self._say(
            f"server {safe_line(self._server)!r} needs you to open {count} page(s) before "
            f"{safe_line(tool)!r} can run:"
        )
        opened = 0
        try:
            for page in pages[:MAX_PAGES_SHOWN]:
                opened += self._ask_url(page, asking=False).action == "accept"
        except EOFError:
            self._say("(input ended: nothing more is opened)")
        if count > MAX_PAGES_SHOWN:
            self._say(f"  ({count - MAX_PAGES_SHOWN} more page(s) not shown)")
        return opened

    def _ask_url(
        self, params: types.ElicitRequestURLParams, *, asking: bool = True
    ) -> types.ElicitResult:
        url = params.url
        if asking:
            self._say(
                f"server {safe_line(self._server)!r} asks you to open a page: "
                f"{safe_line(params.message)}"
            )
        else:
            self._say(f"- {safe_line(params.message)}")
        for line in _page_lines(url):
            self._say(line)
        if not openable(url):
            return types.ElicitResult(action="decline")
        if self._question("Open it in your browser? [y]es / [N]o: ").lower() not in ("y", "yes"):
            return types.ElicitResult(action="decline")
        if not self._open_url(url):
            self._say("  no browser could be opened: open the page yourself")
        return types.ElicitResult(action="accept")


def _page_lines(url: str) -> list[str]:
    """How a page is shown: the whole URL, its domain on a line of its own, the warnings."""
    host = url_parts(url).host
    lines = [f"  {safe_line(url)}", f"  domain: {safe_line(host) or '(none)'}"]
    return lines + [f"  warning: {warning}" for warning in url_warnings(url)]


def pages_text(pages: list[types.ElicitRequestURLParams]) -> str:
    """The pages of a ``-32042`` refusal when nobody can be asked (no terminal), a few lines
    each: message, URL, domain and warnings (at most ``MAX_PAGES_SHOWN``, the rest counted)."""
    lines = []
    for page in pages[:MAX_PAGES_SHOWN]:
        lines.append(f"- {safe_line(page.message)}")
        lines += _page_lines(page.url)
    if len(pages) > MAX_PAGES_SHOWN:
        lines.append(f"  ({len(pages) - MAX_PAGES_SHOWN} more page(s) not shown)")
    return "\n".join(lines)


def _shown(value: Answer) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(safe_line(item) for item in value)
    return safe_line(str(value))
