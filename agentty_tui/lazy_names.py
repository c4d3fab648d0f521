"""A package's public names imported on first use (a module ``__getattr__``, PEP 562).

A package that re-exports its modules' names would import every one of them with itself; a
command that needs one module (a config-only edit needs one dialect, not all of them) then pays
for all. ``lazy_names`` makes the package's ``__getattr__`` import a name's module the first
time the name is asked for, and keep the name in the package from then on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``homes`` is imported from the module
    it maps to and stored in ``namespace`` (the package's ``globals()``); any other name is an
    ``AttributeError``."""

    def package_getattr(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return package_getattr
