"""A stand-in for the user's browser, run by Python's ``webbrowser`` through ``$BROWSER``.

Usage (as ``webbrowser`` calls it): ``python standin_browser.py URL``. It writes a marker line
to ``$STANDIN_BROWSER_MARKER`` (so a test can tell whether a browser was ever opened), then
loads the URL and follows redirects, as a browser would, until a page answers: with the
approving authorization server that ends at the client's loopback callback.

``$STANDIN_BROWSER_MODE``: ``follow`` (the default); ``forge`` first sends the callback a
redirect with a wrong ``state`` and records the status it got in the marker file, then follows
the real one; ``ignore`` opens nothing (a user who never comes back).
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _status(opener: urllib.request.OpenerDirector, url: str) -> tuple[int, str | None]:
    try:
        with opener.open(url, timeout=30) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location")


def main() -> int:
    url = sys.argv[-1]
    marker = os.environ.get("STANDIN_BROWSER_MARKER")
    mode = os.environ.get("STANDIN_BROWSER_MODE", "follow")
    notes: list[str] = ["opened"]
    opener = urllib.request.build_opener(_NoRedirect)
    if mode != "ignore":
        for _ in range(10):
            status, location = _status(opener, url)
            if location is None:
                notes.append(f"final {status}")
                break
            url = location
            if mode == "forge" and urlsplit(url).hostname == "127.0.0.1" and "state=" in url:
                parts = urlsplit(url)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                forged = urlunsplit(parts._replace(query=urlencode({**query, "state": "forged"})))
                notes.append(f"forged {_status(opener, forged)[0]}")
                mode = "follow"
    if marker:
        with open(marker, "a") as handle:
            handle.write(" ".join(notes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
