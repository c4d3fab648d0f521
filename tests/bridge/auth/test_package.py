"""The auth package's names are imported on first use, and each is what an eager import gave."""

from __future__ import annotations

import importlib
import subprocess
import sys

import agentty_tui.bridge.auth as auth


def test_every_public_name_has_a_home_and_is_found_there() -> None:
    assert set(auth.__all__) == set(auth._HOMES)
    for name, home in auth._HOMES.items():
        assert getattr(auth, name) is getattr(importlib.import_module(home), name)


def test_login_is_the_function_even_after_its_module_came_in_for_another_name() -> None:
    """``login.py`` imported for ``expires_in_words`` makes ``login`` the submodule on the
    package: the function must win, in a fresh interpreter where nothing was imported yet."""
    code = (
        "from agentty_tui.bridge.auth import expires_in_words\n"
        "from agentty_tui.bridge.auth import login\n"
        "print(type(login).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "function"


def test_logout_needs_neither_the_sdk_nor_pydantic() -> None:
    code = (
        "import sys\n"
        "from agentty_tui.bridge.auth.vault import forget_record\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'httpx2', 'pydantic'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
