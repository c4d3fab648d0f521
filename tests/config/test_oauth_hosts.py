"""Each host's own spelling of a URL server's OAuth settings, read from a realistic file and
carried by ``import`` into our ``mcpServers`` JSON (and into another host's file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.config import ConfigStore, apply_import, plan_import
from agentty_tui.model import HttpSpec, OAuthSettings, PluginConfig

CLAUDE_CODE = """{
  "mcpServers": {
    "tracker": {
      "type": "http",
      "url": "https://mcp.tracker.example/mcp",
      "oauth": {
        "clientId": "claude-client-42",
        "callbackPort": 8080,
        "scopes": "issues:read issues:write",
        "authServerMetadataUrl": "https://auth.tracker.example/.well-known/openid-configuration"
      }
    },
    "docs": {"type": "http", "url": "https://mcp.docs.example/mcp"}
  }
}
"""

VSCODE = """{
  // Workspace MCP servers
  "servers": {
    "tracker": {
      "type": "http",
      "url": "https://mcp.tracker.example/mcp",
      "oauth": {"clientId": "vscode-client-7"}
    }
  },
  "inputs": []
}
"""

GEMINI = """{
  "theme": "GitHub",
  "mcpServers": {
    "tracker": {
      "httpUrl": "https://mcp.tracker.example/mcp",
      "timeout": 30000,
      "oauth": {
        "enabled": true,
        "clientId": "gemini-client-9",
        "clientSecret": "$TRACKER_SECRET",
        "authorizationUrl": "https://auth.tracker.example/authorize",
        "tokenUrl": "https://auth.tracker.example/token",
        "scopes": ["issues:read", "offline_access"],
        "redirectUri": "http://localhost:7777/callback"
      }
    },
    "off": {
      "httpUrl": "https://mcp.off.example/mcp",
      "oauth": {"enabled": false, "clientId": "unused"}
    }
  }
}
"""

CODEX = """model = "gpt-5-codex"
mcp_oauth_callback_port = 5555

[mcp_servers.tracker]
url = "https://mcp.tracker.example/mcp"
scopes = ["issues:read", "issues:write"]
oauth_resource = "https://mcp.tracker.example"

[mcp_servers.tracker.oauth]
client_id = "codex-client-3"

[mcp_servers.tokened]
url = "https://mcp.tokened.example/mcp"
bearer_token_env_var = "TOKENED_TOKEN"

[mcp_servers.local]
command = "npx"
args = ["-y", "local-mcp"]
"""


def _load(tmp_path: Path, name: str, text: str) -> PluginConfig:
    path = tmp_path / "host" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return ConfigStore(path).load()


def _oauth(config: PluginConfig, name: str) -> OAuthSettings | None:
    server = config.server(name)
    assert server is not None and server.problem is None, server
    assert isinstance(server.spec, HttpSpec)
    return server.spec.oauth


def test_claude_code_spelling(tmp_path: Path) -> None:
    config = _load(tmp_path, ".mcp.json", CLAUDE_CODE)
    assert _oauth(config, "tracker") == OAuthSettings(
        client_id="claude-client-42", callback_port=8080, scopes=("issues:read", "issues:write")
    )
    assert _oauth(config, "docs") is None


def test_vscode_spelling(tmp_path: Path) -> None:
    config = _load(tmp_path, ".vscode/mcp.json", VSCODE)
    assert _oauth(config, "tracker") == OAuthSettings(client_id="vscode-client-7")


def test_gemini_spelling(tmp_path: Path) -> None:
    config = _load(tmp_path, "settings.json", GEMINI)
    assert _oauth(config, "tracker") == OAuthSettings(
        client_id="gemini-client-9",
        client_secret="${TRACKER_SECRET}",  # Gemini's $VAR, expanded at connect time
        scopes=("issues:read", "offline_access"),
        callback_port=7777,
    )
    assert _oauth(config, "off") is None  # enabled: false


@pytest.mark.parametrize(
    "uri",
    ["https://app.example/oauth", "http://localhost:7777/oauth/callback", "http://[::1]/callback"],
)
def test_gemini_redirect_uri_we_cannot_serve_is_named(tmp_path: Path, uri: str) -> None:
    text = GEMINI.replace("http://localhost:7777/callback", uri)
    server = _load(tmp_path, "settings.json", text).server("tracker")
    assert server is not None and server.problem is not None
    assert "oauth.redirectUri" in server.problem
    assert "http://127.0.0.1:PORT/callback" in server.problem


def test_codex_spelling(tmp_path: Path) -> None:
    config = _load(tmp_path, "config.toml", CODEX)
    assert _oauth(config, "tracker") == OAuthSettings(
        client_id="codex-client-3", scopes=("issues:read", "issues:write"), callback_port=5555
    )
    tokened = config.server("tokened")
    assert tokened is not None and isinstance(tokened.spec, HttpSpec)
    # A token the user manages is a header, and such a server has no login.
    assert tokened.spec.headers["Authorization"] == "Bearer ${TOKENED_TOKEN}"
    assert config.server("local") is not None and config.server("local").problem is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".mcp.json", CLAUDE_CODE),
        (".vscode/mcp.json", VSCODE),
        ("settings.json", GEMINI),
        ("config.toml", CODEX),
    ],
)
def test_import_carries_the_oauth_settings_into_mcp_json(
    tmp_path: Path, name: str, text: str
) -> None:
    source = _load(tmp_path, name, text)
    target = tmp_path / "mcp.json"
    target.write_text('{"mcpServers": {}}\n')
    store = ConfigStore(target)
    result = apply_import(plan_import(source, store.load()), store)
    assert "tracker" in result.added and result.failed == ()
    written = json.loads(target.read_text())["mcpServers"]["tracker"]["oauth"]
    assert written["clientId"] == _oauth(source, "tracker").client_id  # type: ignore[union-attr]
    assert _oauth(store.load(), "tracker") == _oauth(source, "tracker")
    assert plan_import(source, store.load()).add == ()  # importing again adds nothing


@pytest.mark.parametrize("target_name", ["settings.json", "config.toml", ".vscode/mcp.json"])
def test_import_writes_the_target_hosts_own_spelling(tmp_path: Path, target_name: str) -> None:
    source = _load(tmp_path, "settings.json", GEMINI)
    target = tmp_path / "target" / target_name
    target.parent.mkdir(parents=True)
    target.write_text("" if target_name.endswith(".toml") else "{}\n")
    store = ConfigStore(target)
    apply_import(plan_import(source, store.load()), store)
    read_back = _oauth(store.load(), "tracker")
    assert read_back is not None
    assert read_back.client_id == "gemini-client-9"
    assert read_back.scopes == ("issues:read", "offline_access")
    if not target_name.endswith(".toml"):  # Codex's callback port is one for the whole file
        assert read_back.callback_port == 7777
