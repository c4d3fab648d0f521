"""The conformance harness's own logic: the runner's judging, the driver's plans, the browser.

The suite itself runs in CI (``tests/conformance/run.py``); these tests keep the parts that
decide pass or fail honest without Node.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.conformance import browser, client, run

LISTING = """Required for 2025-11-25 (48 scenarios, frozen; run at the 2025-11-25 wire):

Server scenarios (test against a server):
  - server-initialize
  - ping

Client scenarios (test against a client):
  - initialize
  - tools_call
  - auth/metadata-default

Run and reported, but never scored:
  extension (1):
    - auth/dpop [client]
  added-after-release (2):
    - server-session-lifecycle [server]
    - json-schema-2020-12-preservation [client]
"""


def _check(status: str, id_: str = "c", message: str | None = None) -> dict[str, Any]:
    check: dict[str, Any] = {"id": id_, "status": status, "description": f"{id_} described"}
    if message is not None:
        check["errorMessage"] = message
    return check


def test_requirements_keep_client_scenarios_scored_then_reported() -> None:
    parsed = run.parse_requirements("2025-11-25", LISTING)
    assert parsed.scored == ("initialize", "tools_call", "auth/metadata-default")
    assert parsed.reported == ("auth/dpop", "json-schema-2020-12-preservation")
    with pytest.raises(ValueError, match="no client scenario"):
        run.parse_requirements("2025-11-25", "Server scenarios (test against a server):\n  - x\n")


def test_a_failure_fails_a_warning_does_not_and_nothing_is_not_a_pass() -> None:
    passed = run.judge("s", [_check("SUCCESS"), _check("INFO")])
    assert (passed.outcome, passed.passed, passed.why) == ("pass", 1, "")
    warned = run.judge("s", [_check("SUCCESS"), _check("WARNING", "w", "soft")])
    assert (warned.outcome, warned.why) == ("warn", "w: soft")
    failed = run.judge(
        "s", [_check("WARNING", "w"), _check("FAILURE", "f", "hard\n  broken"), _check("SUCCESS")]
    )
    assert (failed.outcome, failed.failed, failed.why) == ("fail", 1, "f: hard broken")
    assert run.judge("s", None).outcome == "fail"  # the suite wrote nothing
    assert run.judge("s", [_check("INFO"), _check("SKIPPED")]).outcome == "fail"


def test_expected_file_lines_and_mistakes() -> None:
    text = "# header\n2025-11-25 initialize  # comment\n\n2026-07-28 tools_call\n"
    assert run.parse_expected(text) == {("2025-11-25", "initialize"), ("2026-07-28", "tools_call")}
    with pytest.raises(ValueError, match="line 1"):
        run.parse_expected("initialize\n")
    with pytest.raises(ValueError, match="line 2"):
        run.parse_expected("2025-11-25 a\n1999-01-01 b\n")


def test_only_an_expected_scenario_that_ran_and_failed_is_a_regression() -> None:
    verdicts = {
        "2025-11-25": {
            "initialize": run.judge("initialize", [_check("FAILURE")]),
            "tools_call": run.judge("tools_call", [_check("SUCCESS")]),
            "auth/x": run.judge("auth/x", [_check("FAILURE")]),
            "sse-retry": run.judge("sse-retry", [_check("FAILURE")]),
            "warned": run.judge("warned", [_check("SUCCESS"), _check("WARNING")]),
        }
    }
    expected = {
        ("2025-11-25", "initialize"),
        ("2025-11-25", "tools_call"),
        ("2025-11-25", "warned"),
        ("2025-11-25", "sse-retry"),
        ("2026-07-28", "initialize"),  # that revision did not run
    }
    broken = run.regressions(expected, verdicts)
    assert [(revision, v.scenario) for revision, v in broken] == [
        ("2025-11-25", "initialize"),
        ("2025-11-25", "sse-retry"),
    ]


def test_results_table_has_a_column_per_revision_and_the_reason() -> None:
    first = run.parse_requirements("2025-11-25", LISTING)
    second = run.Requirements("2026-07-28", ("tools_call",), ())
    table = run.markdown(
        {
            "2025-11-25": (
                first,
                {s: run.judge(s, [_check("FAILURE", "x", "a|b")]) for s in first.scenarios},
            ),
            "2026-07-28": (second, {"tools_call": run.judge("tools_call", [_check("SUCCESS")])}),
        }
    )
    lines = table.splitlines()
    assert lines[0] == "| scenario | 2025-11-25 | 2026-07-28 | why not passing |"
    assert "| tools_call | fail | pass | x: a/b |" in lines
    assert "| auth/dpop | fail (not scored) | — | x: a/b |" in lines


def test_every_scenario_has_a_plan_and_auth_logs_in_before_calling() -> None:
    assert client.plan_for("tools_call") == client.PLANS["tools_call"]
    assert client.plan_for("auth/scope-step-up") == (client.LOGIN, client.AUTH_CALL)
    assert client.LOGIN.stop_on_failure
    assert client.plan_for("something-new") == (client.LIST,)


def test_a_pre_registered_client_goes_into_the_oauth_settings() -> None:
    url = "http://localhost:1/mcp"
    assert client.server_entry(url, {}) == {"url": url}
    entry = client.server_entry(url, {"client_id": "id", "client_secret": "secret"})
    assert entry == {"url": url, "oauth": {"clientId": "id", "clientSecret": "secret"}}


def test_the_metadata_document_scenario_configures_its_url() -> None:
    url = "http://localhost:1/mcp"
    entry = client.server_entry(url, {}, "auth/basic-cimd")
    assert entry["oauth"]["clientMetadataUrl"].startswith("https://")
    assert client.server_entry(url, {}, "auth/metadata-default") == {"url": url}


def test_invalid_header_plan_calls_exactly_what_the_cli_listed() -> None:
    context = client.Context(url="u", scenario="http-invalid-tool-headers", suite={})
    context.outputs["list"] = {
        "servers": [{"name": client.SERVER, "tools": [{"name": "valid_tool"}, {"name": "new"}]}]
    }
    step = client.PLANS["http-invalid-tool-headers"][1]
    commands = step.words(context) or []
    assert [list(c) for c in commands] == [
        ["call", client.SERVER, "new", "{}"],
        ["call", client.SERVER, "valid_tool", json.dumps({"region": "us-west1"})],
    ]


def test_custom_header_calls_come_from_the_suite_context() -> None:
    suite = {"toolCalls": [{"name": "t", "arguments": {"region": "r"}}, {"name": "u"}]}
    context = client.Context(url="u", scenario="http-custom-headers", suite=suite)
    commands = client.PLANS["http-custom-headers"][1].words(context) or []
    assert [list(c) for c in commands] == [
        ["call", client.SERVER, "t", '{"region": "r"}'],
        ["call", client.SERVER, "u", "{}"],
    ]


class _Redirects(BaseHTTPRequestHandler):
    """/authorize redirects to /callback, which records its query, like a loopback listener."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        if self.path.startswith("/authorize"):
            self.send_response(302)
            self.send_header("Location", "/callback?code=abc&state=xyz")
            self.end_headers()
            return
        type(self).seen.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"you can go back to the terminal")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        """Quiet: the test reads what it needs from ``seen``."""


@pytest.fixture
def redirecting_server() -> Iterator[str]:
    _Redirects.seen = []
    server = HTTPServer(("127.0.0.1", 0), _Redirects)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_stand_in_browser_follows_the_redirect_to_the_callback(
    redirecting_server: str,
) -> None:
    assert browser.visit(f"{redirecting_server}/authorize?client_id=c") == 200
    assert _Redirects.seen == ["/callback?code=abc&state=xyz"]
    assert browser.visit("http://127.0.0.1:9/nothing-listens") == 0


def test_checks_are_found_under_the_suites_folder_names(tmp_path: Path) -> None:
    layout = {
        "initialize-2026-12-01T12-05-08-855Z": [_check("SUCCESS")],
        "auth/metadata-default-2026-12-01T12-32-26-680Z": [_check("FAILURE")],
    }
    for folder, checks in layout.items():
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "checks.json").write_text(json.dumps(checks))
    found = run.checks_under(tmp_path)
    assert sorted(found) == ["auth/metadata-default", "initialize"]
    assert found["auth/metadata-default"][0]["status"] == "FAILURE"
