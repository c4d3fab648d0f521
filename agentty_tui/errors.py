"""Error types of agentty_tui, each carrying text a user can act on."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "AgenttyError",
    "ConfigError",
    "EntryChangedError",
    "OperationError",
    "ReadOnlyFileError",
    "UnknownServerError",
    "UnknownToolError",
    "UsageError",
    "did_you_mean",
]


class AgenttyError(Exception):
    """Base of every error this package raises on purpose; ``str()`` is the user-facing text."""


class ConfigError(AgenttyError):
    """A config file that cannot be read, parsed or validated, or an edit it cannot take.

    The message names the file and, where known, the line and column or the server and field.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        server: str | None = None,
        field: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.server = server
        self.field = field
        where = path or ""
        if line is not None:
            where += f":{line}" + (f":{column}" if column is not None else "")
        parts = [where] if where else []
        if server is not None:
            parts.append(f"server {server!r}" + (f", field {field!r}" if field else ""))
        elif field is not None:
            parts.append(f"field {field!r}")
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.detail = message


class OperationError(AgenttyError):
    """An operation of the bridge that could not be carried out (the model is unchanged)."""


class EntryChangedError(AgenttyError):
    """A trust given to entries as they were shown, while some of them changed (their file was
    edited meanwhile): those were not trusted, and the bridge has loaded them as they are now,
    so the user can be shown them and asked again."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        """The entries that changed (or went away) since they were shown."""
        listed = ", ".join(repr(name) for name in self.names)
        super().__init__(
            f"{listed} changed since you were asked (its file was edited): not trusted. "
            "Look at it again before you trust it."
        )


class ReadOnlyFileError(OperationError):
    """A config file its owner made read-only: an edit is refused rather than renamed over it."""

    def __init__(self, path: str, mode: int) -> None:
        self.path = path
        self.mode = mode
        super().__init__(f"{path} is read-only (mode {mode:04o}): not written")


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the known name closest to a mistyped ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


class UnknownServerError(OperationError):
    """A server name that the config does not have; ``known`` (the names it has) gives the
    message a suggestion when one is close; ``where`` says which config (a file holding servers
    of several scopes names the part it looked in)."""

    def __init__(self, name: str, known: Iterable[str] = (), *, where: str = "the config") -> None:
        self.name = name
        super().__init__(f"no server named {name!r} in {where}{did_you_mean(name, known)}")


class UnknownToolError(OperationError):
    """A tool name that the server does not advertise (or a wire name the catalog lacks);
    ``known`` (the names it does advertise) gives the message a suggestion when one is close."""

    def __init__(self, server: str | None, tool: str, known: Iterable[str] = ()) -> None:
        self.server = server
        self.tool = tool
        where = f" on server {server!r}" if server is not None else ""
        super().__init__(f"no tool named {tool!r}{where}{did_you_mean(tool, known)}")


class UsageError(AgenttyError):
    """Command-line arguments that parse but do not make sense together."""


HOST_WITH_CONFIG = "--host chooses a host of a workspace; --config is one file"
"""Why ``--host`` and ``--config`` are refused together, by every command that takes both."""
