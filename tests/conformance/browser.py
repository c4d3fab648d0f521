#!/usr/bin/env python3
"""A stand-in web browser for ``$BROWSER``: it plays the user who approves a login.

``browser.py URL`` loads the authorization URL and follows every redirect, the last of which
lands on the CLI's loopback callback. The conformance suite's authorization server approves at
once, so no page needs reading. The command returns at once and does the loading in a child
process: a caller that waits for its browser to exit (as Python's ``webbrowser`` does for a
``$BROWSER`` command) must never block the callback it is itself about to serve.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence

__all__ = ["main", "visit"]

TIMEOUT_SECONDS = 20.0
"""Longer than any scenario's login, shorter than the suite's limit for the whole client."""


def visit(url: str) -> int:
    """GET ``url`` and follow the redirects; the HTTP status of the last page (0 if none)."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            status: int = response.status
    except urllib.error.HTTPError as exc:  # the callback may refuse a wrong state: still a page
        status = exc.code
    except (urllib.error.URLError, OSError) as exc:
        print(f"browser: could not load the page: {exc}", file=sys.stderr)
        return 0
    print(f"browser: the last page answered HTTP {status}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``browser.py URL`` detaches and loads; ``browser.py --now URL`` loads in this process."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["--now"] and len(words) == 2:
        return 0 if visit(words[1]) else 1
    if len(words) != 1:
        print("usage: browser.py URL", file=sys.stderr)
        return 2
    subprocess.Popen([sys.executable, __file__, "--now", words[0]], start_new_session=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
