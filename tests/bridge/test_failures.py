"""Failure texts are made from the config as written, with URL credentials masked."""

from __future__ import annotations

import httpx2

from agentty_tui.bridge.failures import authorization_failure, describe_failure
from agentty_tui.model import HttpSpec, ServerConfig

URL = "http://user:pw123@127.0.0.1:9/mcp?token=tok456&x=1"
SHOWN = "http://••••:•••••@127.0.0.1:9/mcp?token=••••••&x=1"


def _config(url: str = URL) -> ServerConfig:
    return ServerConfig(name="web", spec=HttpSpec(url=url))


def test_a_refused_connection_names_the_masked_url() -> None:
    error = httpx2.ConnectError("All connection attempts failed")
    text = describe_failure(ExceptionGroup("x", [error]), _config())
    assert text == f"cannot connect to {SHOWN}: All connection attempts failed"


def test_an_error_status_names_the_masked_url() -> None:
    request = httpx2.Request("POST", URL)
    response = httpx2.Response(401, request=request)
    error = httpx2.HTTPStatusError("401", request=request, response=response)
    text = describe_failure(error, _config())
    assert text == f"{SHOWN} answered HTTP 401 (check the headers: is a token missing or expired?)"
    assert describe_failure(RuntimeError("x"), _config(), http_status=403).startswith(
        f"{SHOWN} answered HTTP 403"
    )


def test_the_template_is_described_not_its_expansion() -> None:
    # The config's spec is the template: a reference stays a reference in the text.
    text = describe_failure(httpx2.ConnectError(""), _config("http://h:${PORT}/mcp?key=${KEY}"))
    assert text == "cannot connect to http://h:${PORT}/mcp?key=${KEY}: connection refused"


def test_a_url_the_exception_quotes_is_masked_too() -> None:
    # The SDK's OAuth errors and httpx's messages quote URLs (the expanded one, a metadata
    # document's): the failure text masks each of them by the same rule.
    quoted = RuntimeError(f"Protected resource http://h/mcp does not match expected {URL}")
    text = describe_failure(quoted, _config())
    assert text == f"RuntimeError: Protected resource http://h/mcp does not match expected {SHOWN}"
    assert describe_failure(ExceptionGroup("x", [httpx2.ConnectError(URL)]), _config()) == (
        f"cannot connect to {SHOWN}: {SHOWN}"
    )
    assert authorization_failure(ValueError(f"at {URL}")) == f"authorization failed: at {SHOWN}"
