"""Token storage: the keyring only with a real backend, private files otherwise."""

from __future__ import annotations

import stat
import sys
import types
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from agentty_tui.bridge.auth.storage import (
    FileVault,
    KeyringVault,
    ServerTokenStorage,
    default_vault,
)

pytestmark = pytest.mark.anyio


def _fake_keyring(monkeypatch: pytest.MonkeyPatch, backend: object) -> None:
    module = types.ModuleType("keyring")
    module.get_keyring = lambda: backend  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", module)
    monkeypatch.delenv("AGENTTY_KEYRING", raising=False)


def test_keyring_with_a_fail_backend_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # Named "fail" even where it claims a priority; and any backend without a priority.
    fail = type("Keyring", (), {"priority": 1})
    fail.__module__ = "keyring.backends.fail"
    _fake_keyring(monkeypatch, fail())
    assert isinstance(default_vault(), FileVault)
    lowly = type("Keyring", (), {"priority": 0})
    lowly.__module__ = "keyring.backends.chainer"
    _fake_keyring(monkeypatch, lowly())
    assert isinstance(default_vault(), FileVault)


def test_keyring_with_a_real_backend_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    real = type("Keyring", (), {"priority": 5})
    real.__module__ = "keyring.backends.SecretService"
    _fake_keyring(monkeypatch, real())
    assert isinstance(default_vault(), KeyringVault)
    monkeypatch.setenv("AGENTTY_KEYRING", "0")  # the user can refuse it
    assert isinstance(default_vault(), FileVault)


async def test_file_records_are_private_and_keyed_by_url(tmp_path: Path) -> None:
    vault = FileVault(tmp_path / "auth")
    one = ServerTokenStorage("https://a/mcp", vault)
    two = ServerTokenStorage("https://b/mcp", vault)
    await one.set_tokens(OAuthToken(access_token="at-1", expires_in=60, refresh_token="rt-1"))
    assert await two.get_tokens() is None
    path = vault.path("https://a/mcp")
    assert "https" not in path.name  # the URL is not in the file name
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
    record = one.load()
    assert record.tokens is not None and record.expires_at is not None


async def test_a_new_client_drops_the_old_tokens_and_damage_is_a_new_login(
    tmp_path: Path,
) -> None:
    storage = ServerTokenStorage("https://a/mcp", FileVault(tmp_path))
    await storage.set_client_info(OAuthClientInformationFull(client_id="c1", issuer="https://as"))
    await storage.set_tokens(OAuthToken(access_token="at-1"))
    await storage.set_client_info(OAuthClientInformationFull(client_id="c2", issuer="https://as2"))
    assert await storage.get_tokens() is None
    assert storage.load().issuer == "https://as2"
    storage.vault.write("https://a/mcp", "{not json")
    assert storage.load().tokens is None and storage.load().client_info is None
    assert storage.forget() is True and storage.forget() is False
