"""The bearer token of ``serve --http``: a random secret in a file only the user may read.

The file is ``http-token`` in ``$XDG_STATE_HOME/agentty/`` (``~/.local/state/agentty/``): a
state folder, not the runtime one, so the token outlives a logout and a host's entry that
carries it keeps working from one ``serve --http`` to the next. It is made once (32 random
bytes, URL-safe base64), created with mode 0600 and never rewritten; removing it makes the
next ``serve --http`` choose a new one. A file that others may read, that another user owns
or that does not hold a token is refused with a message naming it, never used or overwritten.

Kept apart from the endpoint (uvicorn, the SDK) so that ``serve --http --shared``, which
serves nothing itself, reads it without them.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from agentty_tui.errors import AgenttyError

__all__ = ["TOKEN_BYTES", "read_or_make_token", "token_path"]

TOKEN_BYTES = 32
"""Random bytes in a new token (43 characters of URL-safe base64)."""

_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,256}")
"""What a token file may hold (one made here, or one the user put there), without the
trailing newline."""


def token_path(env: Mapping[str, str], home: Path | None = None) -> Path:
    """``$XDG_STATE_HOME/agentty/http-token``, else ``~/.local/state/agentty/http-token``."""
    state = env.get("XDG_STATE_HOME")
    base = Path(state) if state else (home or Path.home()) / ".local" / "state"
    return base / "agentty" / "http-token"


def read_or_make_token(path: Path) -> str:
    """The token in ``path``, made first if the file does not exist; an ``AgenttyError``
    naming the file when it cannot be used."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    made = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        # Exclusive: two serves starting at once make one token, and the second reads it.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read(path)
    except OSError as exc:
        raise AgenttyError(f"cannot make the token file {path}: {exc.strerror}") from exc
    try:
        os.write(descriptor, (made + "\n").encode())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)  # never leave a half-written token behind
        raise AgenttyError(f"cannot write the token file {path}: {exc.strerror}") from exc
    finally:
        os.close(descriptor)
    return made


def _read(path: Path) -> str:
    """The token of an existing file, once the file is the user's alone."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise AgenttyError(f"cannot read the token file {path}: {exc.strerror}") from exc
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise AgenttyError(f"{path} is not a file of this user: remove it for a new token")
        if info.st_mode & 0o077:
            raise AgenttyError(
                f"{path} may be read by others (mode {stat.S_IMODE(info.st_mode):o}): remove it "
                "for a new token, or chmod 600 it"
            )
        text = os.read(descriptor, 1024).decode("ascii", errors="replace").strip()
    finally:
        os.close(descriptor)
    if not _TOKEN.fullmatch(text):
        raise AgenttyError(f"{path} does not hold a token: remove it for a new one")
    return text
