"""A file replaced whole: what agentty keeps of its own (the trust store, the token vault, the
token counts, the HTTP sessions) is written so that a reader sees the old file or the new,
never a part, and nobody else may read it even while it is written.

The content goes to a temporary file in the same folder, made by ``mkstemp`` (mode 0600 from
its creation), which is then renamed over the target (``os.replace``: atomic on one file
system; a link at the target is replaced, never followed). A failure removes the temporary
file and is raised.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["replace_file"]


def replace_file(path: Path, content: bytes, *, prefix: str, durable: bool = False) -> None:
    """Make ``content`` the whole of ``path`` (its folder exists), through a temporary file
    named ``prefix…`` beside it. ``durable``: the content is on disk before the rename (an
    ``fsync``), so that a crash leaves the old file or the new one whole."""
    handle, temporary = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(content)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
