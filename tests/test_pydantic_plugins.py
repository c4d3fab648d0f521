"""pydantic's plugin discovery skipped where no plugin is installed (``pydantic_plugins.py``):
a config-only command imports no ``importlib.metadata``, and an installed plugin is still
loaded, and called for our models, exactly as pydantic loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from agentty_tui.pydantic_plugins import may_declare_plugins

REPO = Path(__file__).resolve().parent.parent


def _fresh(code: str, *, path: list[Path] | None = None, cwd: Path) -> str:
    """``code`` run by a fresh interpreter (``path`` first on its ``PYTHONPATH``); its stdout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*(str(p) for p in path or ()), str(REPO)])
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_config_only_command_imports_no_importlib_metadata(tmp_path: Path) -> None:
    """``disable`` of a tool the file names: pydantic builds every config model, and neither
    its plugin loader nor ``importlib.metadata`` (with ``email``, ``zipfile``...) is imported."""
    config = tmp_path / "named.json"
    config.write_text(
        json.dumps({"mcpServers": {"s": {"command": "true", "tools": {"exclude": ["t"]}}}})
    )
    code = f"""
import contextlib, io, sys
from agentty_tui import cli
with contextlib.redirect_stdout(io.StringIO()):
    assert cli.main(["disable", "s", "t", "--config", {str(config)!r}]) == 0
loader = sys.modules["pydantic.plugin._loader"]
print("importlib.metadata" in sys.modules, "zipfile" in sys.modules, list(loader.get_plugins()))
"""
    assert _fresh(code, cwd=tmp_path).split() == ["False", "False", "[]"]


PLUGIN = """
SEEN = []


class Plugin:
    def new_schema_validator(self, schema, schema_type, path, kind, config, settings):
        SEEN.append(getattr(schema_type, "__name__", str(schema_type)))
        return None, None, None


plugin = Plugin()
"""


def test_an_installed_plugin_is_loaded_and_called_for_our_models(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "seeing_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: seeing-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[console_scripts]\nx = y:z\n\n[pydantic]\nsee = seeing:plugin\n"
    )
    (site / "seeing.py").write_text(PLUGIN)
    code = """
import sys
import agentty_tui.specs
import seeing
print(" ".join(seeing.SEEN))
print("importlib.metadata" in sys.modules)
"""
    seen, metadata = _fresh(code, path=[site], cwd=tmp_path).splitlines()
    assert {"Frozen", "StdioSpec", "ServerConfig", "PluginConfig"} <= set(seen.split())
    assert metadata == "True"  # pydantic's own loader found it


def _info(site: Path, name: str, entry_points: str | None) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


def test_only_a_pydantic_group_or_what_is_not_read_here_may_declare_plugins(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    _info(site, "bare", None)
    _info(site, "scripts", "[console_scripts]\npydantic = x:y\n")
    _info(site, "named_so", "# [pydantic]\n[other]\nx = pydantic:plugin\n")
    missing = tmp_path / "missing"
    assert not may_declare_plugins([str(site), str(missing)])
    spaced = tmp_path / "spaced"
    _info(spaced, "spaced", "[console_scripts]\nx = y:z\n  [ pydantic ]  \nsee = a:b\n")
    assert may_declare_plugins([str(site), str(spaced)])
    egg = tmp_path / "egg-site" / "old.egg-info"
    egg.mkdir(parents=True)
    (egg / "entry_points.txt").write_text("[pydantic]\nsee = a:b\n")
    assert may_declare_plugins([str(egg.parent)])
    archive = tmp_path / "site.zip"  # read by importlib.metadata, not here: may declare one
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("x-1.0.dist-info/METADATA", "Name: x\n")
    assert may_declare_plugins([str(site), str(archive)])
