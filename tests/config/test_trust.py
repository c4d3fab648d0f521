"""The trust store (``trust.json``) is trusted as a config file is: a file others could have
written, or a link planted at its path, trusts nothing, with a warning; and writing it never
writes through such a link.

Real files with real modes, owners and links, over a small fake home with one project server
(``REPO_TOOL``) trusted on disk first.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agentty_tui.config.trust import default_trust_file
from agentty_tui.config.workspace import Workspace, open_workspace
from agentty_tui.model import PluginConfig
from tests.fake_home import REPO_TOOL, FakeHome, small_fake_home


@pytest.fixture
def fake(tmp_path: Path) -> FakeHome:
    return small_fake_home(tmp_path)


def opened(fake: FakeHome) -> Workspace:
    return open_workspace(fake.cwd, home=fake.home, env=fake.env)


def trust_file(fake: FakeHome) -> Path:
    return default_trust_file(fake.home, fake.env)


def waits(config: PluginConfig) -> bool:
    """Whether ``REPO_TOOL`` waits for trust."""
    server = config.server(REPO_TOOL)
    assert server is not None
    return server.untrusted is not None


def trusted_once(fake: FakeHome) -> Path:
    """Trust ``REPO_TOOL`` on disk; the trust file."""
    workspace = opened(fake)
    assert workspace.trust(workspace.load(), [REPO_TOOL]) == 1
    path = trust_file(fake)
    assert not waits(opened(fake).load())  # the file as we wrote it is believed
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    return path


def test_a_trust_file_others_can_write_trusts_nothing_and_says_so(fake: FakeHome) -> None:
    path = trusted_once(fake)
    path.chmod(0o666)
    config = opened(fake).load()
    assert waits(config)
    assert config.warnings == (
        f"{path} is writable by other users (mode 0666) (chmod o-w {path}): no project server "
        "is trusted from it (the next trust replaces it)",
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_trust_file_another_user_owns_trusts_nothing_and_says_so(fake: FakeHome) -> None:
    path = trusted_once(fake)
    os.chown(path, 4321, 4321)
    config = opened(fake).load()
    assert waits(config)
    assert config.warnings == (
        f"{path} belongs to another user (uid 4321) (chown it to yourself): no project server "
        "is trusted from it (the next trust replaces it)",
    )


def test_a_link_at_the_trust_files_path_is_not_followed(fake: FakeHome, tmp_path: Path) -> None:
    path = trusted_once(fake)
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_bytes(path.read_bytes())  # a file that trusts REPO_TOOL, mode and owner fine
    elsewhere.chmod(0o600)
    path.unlink()
    path.symlink_to(elsewhere)
    config = opened(fake).load()
    assert waits(config)
    assert config.warnings == (
        f"{path}: a symbolic link (this file is never one): no project server is trusted from "
        "it (the next trust replaces it)",
    )


def test_trusting_replaces_a_planted_link_and_never_writes_through_it(
    fake: FakeHome, tmp_path: Path
) -> None:
    path = trust_file(fake)
    path.parent.mkdir(parents=True, exist_ok=True)
    victim = tmp_path / "victim.json"
    victim.write_text('{"not": "yours"}\n')
    path.symlink_to(victim)
    workspace = opened(fake)
    assert workspace.trust(workspace.load(), [REPO_TOOL]) == 1
    assert victim.read_text() == '{"not": "yours"}\n'  # the link's target is untouched
    assert not path.is_symlink()
    assert stat.S_IMODE(path.lstat().st_mode) == 0o600
    assert REPO_TOOL in json.loads(path.read_text())["projects"][str(fake.project)]
    config = opened(fake).load()
    assert not waits(config)
    assert config.warnings == ()
