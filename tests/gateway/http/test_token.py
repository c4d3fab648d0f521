"""The bearer token file of ``serve --http`` (``gateway/http/token``): made once, the user's alone,
never overwritten."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentty_tui.errors import AgenttyError
from agentty_tui.gateway.http.token import read_or_make_token, token_path


def test_the_file_is_under_the_state_folder(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    assert token_path(env) == tmp_path / "state" / "agentty" / "http-token"
    home = tmp_path / "home"
    assert token_path({}, home) == home / ".local" / "state" / "agentty" / "http-token"


def test_a_token_is_made_once_mode_0600_and_then_kept(tmp_path: Path) -> None:
    path = tmp_path / "agentty" / "http-token"
    token = read_or_make_token(path)
    assert len(token) == 43 and token.replace("-", "").replace("_", "").isalnum()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_or_make_token(path) == token
    assert read_or_make_token(tmp_path / "other" / "http-token") != token


def test_a_file_others_may_read_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "http-token"
    read_or_make_token(path)
    before = path.read_text()
    path.chmod(0o644)
    with pytest.raises(AgenttyError, match=r"http-token may be read by others \(mode 644\)"):
        read_or_make_token(path)
    assert path.read_text() == before


def test_a_file_without_a_token_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "http-token"
    path.write_text("short\n")
    path.chmod(0o600)
    with pytest.raises(AgenttyError, match="does not hold a token: remove it"):
        read_or_make_token(path)
    assert path.read_text() == "short\n"


def test_a_link_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    read_or_make_token(target)
    path = tmp_path / "http-token"
    os.symlink(target, path)
    with pytest.raises(AgenttyError, match="cannot read the token file"):
        read_or_make_token(path)
