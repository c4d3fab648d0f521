"""Whether a config file may decide which commands run as the user.

A config's ``command`` entries run with the user's rights, so a file someone else can change is
a way for them to run code as the user. As ssh does with its own files, a file that other users
can write, or that belongs to another user (root excepted), is not trusted: it loads, but its
stdio servers are not started until the user says so (or fixes the file).
"""

from __future__ import annotations

import os
import stat

from agentty_tui.model import PluginConfig, ServerConfig, StdioSpec

__all__ = ["TRUST_HINT", "file_trust_problem", "needs_trust", "untrusted_because"]

TRUST_HINT = "T in the picker / --trust"
"""How the user trusts a file for one run, as the messages say it."""


def untrusted_because(path: str, mode: int, uid: int) -> tuple[str, str] | None:
    """The one rule of a file that other users could have written: ``(why, fix)`` when the
    file at ``path``, of permission bits ``mode`` and owner ``uid``, is writable by other users
    or belongs to another user (root excepted), e.g. ``("is writable by other users (mode
    0666)", "chmod o-w PATH")``; ``None`` when only the user could have written it. Config
    files, env files and the trust store (``project_trust``) all ask this one rule."""
    if mode & stat.S_IWOTH:
        return f"is writable by other users (mode {mode:04o})", f"chmod o-w {path}"
    if uid not in (0, os.geteuid()):
        return f"belongs to another user (uid {uid})", "chown it to yourself"
    return None


def file_trust_problem(path: str, mode: int, uid: int) -> str | None:
    """Why the file at ``path`` (of permission bits ``mode`` and owner ``uid``) is not trusted
    to name commands, as one line naming the file and the fix; ``None`` when it is."""
    found = untrusted_because(path, mode, uid)
    if found is None:
        return None
    why, fix = found
    return f"{path} {why}: its commands are not run until you trust it ({fix}, or {TRUST_HINT})"


def needs_trust(config: PluginConfig, server: ServerConfig) -> bool:
    """Whether ``server`` of ``config`` may only start once the user trusts it: an entry the
    workspace marked ``untrusted`` (a project file's, not trusted yet), or a stdio server (it
    runs a command) of an untrusted file. A URL server of such a file runs nothing here."""
    if server.untrusted is not None:
        return True
    return config.insecure is not None and isinstance(server.spec, StdioSpec)
