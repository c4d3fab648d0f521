"""Client ID Metadata Documents: where the authorization server supports them and the config
names ``oauth.clientMetadataUrl``, that URL is the client id and nothing is registered."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.bridge.auth.conftest import Cli, OAuthServer, token_files
from tests.helpers import free_port


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (the document is served over TLS)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test's certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    files = ["-keyout", str(key), "-out", str(cert)]
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            *subject,
            *files,
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class _Document(BaseHTTPRequestHandler):
    body = b""
    fetched = 0

    def do_GET(self) -> None:
        type(self).fetched += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, template: str, *args: object) -> None:
        pass  # the test's output is for the test


@pytest.fixture
def document_host(certificate: tuple[Path, Path]) -> Iterator[tuple[ThreadingHTTPServer, int]]:
    """An HTTPS server on 127.0.0.1 that serves one metadata document."""
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), _Document)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, port
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


@pytest.mark.oauth_server(started=False)
def test_metadata_document_url_is_the_client_id(
    cli: Cli,
    oauth_server: OAuthServer,
    certificate: tuple[Path, Path],
    document_host: tuple[ThreadingHTTPServer, int],
    tmp_path: Path,
) -> None:
    _, doc_port = document_host
    url = f"https://127.0.0.1:{doc_port}/agentty/client.json"
    callback = free_port()
    _Document.body = json.dumps(
        {
            "client_id": url,
            "client_name": "agentty-tui",
            "redirect_uris": [f"http://127.0.0.1:{callback}/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
    ).encode()
    oauth_server.start("--cimd-ca", str(certificate[0]))
    oauth = {"clientMetadataUrl": url, "callbackPort": callback}
    cli.config.write_text(
        json.dumps({"mcpServers": {"web": {"url": oauth_server.url, "oauth": oauth}}})
    )
    result = cli.run("login", "web")
    assert result.returncode == 0, result.stderr
    grants = oauth_server.grants()
    assert "register" not in grants  # no dynamic registration
    assert "cimd" in grants and "code" in grants
    assert _Document.fetched >= 1  # the authorization server read the document
    called = cli.run("call", "web", "whoami")
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == url
    (record,) = token_files(tmp_path / "state")
    assert json.loads(record.read_text())["client_info"]["client_id"] == url


def test_without_server_support_the_document_url_is_not_used(
    cli: Cli, oauth_server: OAuthServer
) -> None:
    url = "https://clients.example/agentty/client.json"
    oauth = {"clientMetadataUrl": url}
    cli.config.write_text(
        json.dumps({"mcpServers": {"web": {"url": oauth_server.url, "oauth": oauth}}})
    )
    result = cli.run("login", "web")
    assert result.returncode == 0, result.stderr
    assert oauth_server.grants() == ["register", "code"]  # registered dynamically instead
    called = cli.run("call", "web", "whoami")
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() != url
