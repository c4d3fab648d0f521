"""``lazy_names``: a package's names imported from their modules on first use, then kept."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from agentty_tui.lazy_names import lazy_names


def test_a_name_is_imported_on_first_use_and_kept() -> None:
    namespace: dict[str, Any] = {}
    sys.modules.pop("colorsys", None)
    package_getattr = lazy_names("pkg", {"rgb_to_hsv": "colorsys"}, namespace)
    assert "colorsys" not in sys.modules  # nothing imported until asked
    found = package_getattr("rgb_to_hsv")
    assert found is sys.modules["colorsys"].rgb_to_hsv
    assert namespace == {"rgb_to_hsv": found}


def test_any_other_name_is_an_attribute_error() -> None:
    package_getattr = lazy_names("pkg", {}, {})
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'nothing'"):
        package_getattr("nothing")
