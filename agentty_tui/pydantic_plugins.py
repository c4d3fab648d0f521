"""pydantic's plugin discovery, without ``importlib.metadata`` where no plugin is installed.

The first model class pydantic builds has it import its plugin loader
(``pydantic.plugin._loader``), which imports ``importlib.metadata`` (and with it ``email``,
``zipfile``, ``csv``, ``socket``...) and reads the entry points of every installed
distribution, looking for the ``pydantic`` group. On a config-only command that is about a
tenth of the start (``bench/bench_imports.py``), spent to find nothing: an environment rarely
holds a pydantic plugin.

``skip_discovery_when_none`` looks for that group itself, in the files ``importlib.metadata``
would read (the ``entry_points.txt`` of each ``*.dist-info`` and ``*.egg-info`` folder of each
``sys.path`` folder), without parsing them. Where it finds none, it gives pydantic a loader that
has no plugins, which is what pydantic's own would have found; where it finds one, or meets
anything it does not read the way ``importlib.metadata`` does (a zip file on the path, a finder
of distributions other than the standard one), it leaves pydantic's loader to do it all, so a
user's plugin is loaded exactly as before.
"""

from __future__ import annotations

import os
import re
import sys
import types
from collections.abc import Iterable
from importlib.machinery import PathFinder

__all__ = ["LOADER", "may_declare_plugins", "skip_discovery_when_none"]

LOADER = "pydantic.plugin._loader"
"""pydantic's module that finds its plugins, imported by pydantic when it builds the first
model's validator (``pydantic.plugin._schema_validator.create_schema_validator``)."""

_GROUP_HEADER = re.compile(rb"^[ \t]*\[[ \t]*pydantic[ \t]*\][ \t]*\r?$", re.MULTILINE)
"""The ``[pydantic]`` section of an ``entry_points.txt`` (``importlib.metadata`` strips the
line and the name between the brackets)."""

_UNREADABLE = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)
"""What ``importlib.metadata`` takes for a distribution without entry points when it reads the
file (``PathDistribution.read_text``)."""


def _declares_plugins(info: str) -> bool:
    """Whether the metadata folder ``info`` declares an entry point of pydantic's group."""
    try:
        with open(os.path.join(info, "entry_points.txt"), "rb") as file:
            return _GROUP_HEADER.search(file.read()) is not None
    except _UNREADABLE:
        return False


def may_declare_plugins(path: Iterable[str]) -> bool:
    """Whether a distribution found on ``path`` (``sys.path``) may declare a pydantic plugin:
    ``True`` where one does, and wherever it is not sure (it reads folders alone)."""
    for finder in sys.meta_path:
        # importlib.metadata asks every finder that can find distributions; only the standard
        # one is read here.
        if getattr(finder, "find_distributions", None) is not None and finder is not PathFinder:
            return True
    for root in path:
        folder = root or "."
        try:
            children = os.listdir(folder)
        except NotADirectoryError:
            return True  # a zip file: read by importlib.metadata, not here
        except OSError:
            continue  # not there: nothing found in it
        for child in children:
            if child.lower().endswith(("dist-info", "egg-info")) and _declares_plugins(
                os.path.join(folder, child)
            ):
                return True
    return False


def _no_plugins() -> tuple[()]:
    """The plugins pydantic's loader would have found: none."""
    return ()


def skip_discovery_when_none() -> None:
    """Before the first model is built: give pydantic a plugin loader without plugins when no
    installed distribution declares one, so that it neither imports ``importlib.metadata`` nor
    reads every distribution's entry points. Does nothing once pydantic's loader is imported
    (it has looked already), or where a plugin may be installed."""
    if LOADER in sys.modules or may_declare_plugins(sys.path):
        return
    loader = types.ModuleType(LOADER, "pydantic's plugin loader where no plugin is installed")
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    loader.PYDANTIC_ENTRY_POINT_GROUP = "pydantic"  # type: ignore[attr-defined]
    sys.modules[LOADER] = loader
