"""The picker's token budget from the counts kept by an earlier run, in a fresh interpreter.

With every definition's count kept (``catalog/token_cache.py``), the token budget applies from
the first projection and the tokenizer is never imported; with one definition not kept, the
first frame shows the count budget alone and a worker loads the encoding, then the budget
applies (``PickerApp._project``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

_PICKER = """
import json
import sys

import anyio

from agentty_tui.catalog import TOKEN_COUNTER, project_catalog
from agentty_tui.ui.app import PickerApp
from tests.ui.fakes import StaticSource, model, server, tool, settle

mode = sys.argv[1]
tools = [tool("a"), tool("b"), tool("c", description="x " * 40)]
if mode == "missing":
    tools.append(tool("d", description="a definition no earlier run counted"))
plain = model(server("notes", *tools))
if mode == "prime":
    TOKEN_COUNTER.warm()
    budget = project_catalog(plain, token_budget=10**6).tokens_shipped
    assert budget is not None
    TOKEN_COUNTER.save()
    print(json.dumps({"budget": budget}))
    raise SystemExit(0)
budget = int(sys.argv[2])
source = StaticSource(plain.model_copy(update={"tool_token_budget": budget}))
app = PickerApp(source, count_tokens=True)
first = {
    "token_budget": app.catalog.token_budget,
    "trimmed": [ref.tool for ref in app.catalog.trimmed],
    "tokenizer": "quicktok" in sys.modules,
}


async def run() -> dict[str, object]:
    async with app.run_test() as pilot:
        with anyio.fail_after(60):
            while app.catalog.token_budget is None:
                await settle(app, "tokens")
                await pilot.pause()
            await settle(app, "costs")
            await pilot.pause()
        return {
            "token_budget": app.catalog.token_budget,
            "trimmed": [ref.tool for ref in app.catalog.trimmed],
            "tokenizer": "quicktok" in sys.modules,
            "loaded": TOKEN_COUNTER.ready,
        }


print(json.dumps({"first": first, "shown": anyio.run(run)}))
"""


def _picker(mode: str, cache: Path, *args: str) -> dict[str, Any]:
    """Run the picker script in a fresh interpreter with ``cache`` as ``$XDG_CACHE_HOME``."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", _PICKER, mode, *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def primed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A cache folder holding the counts of the picker script's tools and natives, and a token
    budget one token short of them all (the last tool, ``c``, does not fit)."""
    cache = tmp_path_factory.mktemp("cache")
    everything = _picker("prime", cache)["budget"]
    assert (cache / "agentty" / "token-counts.bin").is_file()
    return cache, everything - 1


def test_every_count_kept_applies_the_budget_at_once_without_the_tokenizer(
    primed: tuple[Path, int],
) -> None:
    """Every definition counted by an earlier run: the first projection (before the app runs)
    already trims ``c`` by the token budget, and neither it nor the running picker's token
    column and status bar import the tokenizer."""
    cache, budget = primed
    result = _picker("kept", cache, str(budget))
    assert result["first"] == {"token_budget": budget, "trimmed": ["c"], "tokenizer": False}
    assert result["shown"] == {
        "token_budget": budget,
        "trimmed": ["c"],
        "tokenizer": False,
        "loaded": False,
    }


def test_one_count_not_kept_loads_the_encoding_off_the_first_frame(
    primed: tuple[Path, int],
) -> None:
    """One definition no earlier run counted: the first projection has the count budget alone
    (it does not load the encoding), a worker loads it, then the token budget trims."""
    cache, budget = primed
    result = _picker("missing", cache, str(budget))
    assert result["first"] == {"token_budget": None, "trimmed": [], "tokenizer": False}
    shown = result["shown"]
    assert shown["token_budget"] == budget and shown["tokenizer"] and shown["loaded"]
    assert shown["trimmed"] == ["c", "d"]
