#!/usr/bin/env python3
"""The client the official MCP conformance suite drives: one scenario, played through our CLI.

The suite runs ``client.py URL`` with ``MCP_CONFORMANCE_SCENARIO`` (and, for some scenarios,
``MCP_CONFORMANCE_CONTEXT``) set. This script writes a throw-away ``mcpServers`` config naming
that URL, then runs the ``agentty-tui`` commands the scenario needs as subprocesses, exactly as
a user would: what the suite measures is the CLI, never a bare SDK client. ``PLANS`` is the one
table of scenario -> steps.

Every command runs with its own config, state and data folders under a temporary directory, so
a run never reads or writes the user's files, and tokens from one scenario never reach another.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["PLANS", "Context", "Step", "main", "plan_for", "server_entry"]

SERVER = "conformance"
"""The name of the one server in the throw-away config."""

BUDGET_VARIABLE = "AGENTTY_CONFORMANCE_BUDGET"
"""Seconds all steps together may take (set by run.py from the limit it gives the suite)."""

DEFAULT_BUDGET_SECONDS = 27.0
"""Under the suite's default 30 s limit, so a hang is reported by us, not cut short."""

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Context:
    """What one run knows: the server URL, the suite's context, the CLI's earlier outputs."""

    url: str
    scenario: str
    suite: Mapping[str, Any]
    """``MCP_CONFORMANCE_CONTEXT`` parsed (empty when the scenario sends none)."""
    outputs: dict[str, Any] = field(default_factory=dict)
    """Parsed JSON printed by earlier steps, keyed by the step's ``keep`` name."""


@dataclass(frozen=True)
class Step:
    """One CLI command of a scenario's plan.

    ``words`` builds the command's words after ``agentty-tui --config CFG`` from the context;
    returning ``None`` skips the step, and a list of word lists runs several commands.
    """

    words: Callable[[Context], Sequence[Sequence[str]] | None]
    keep: str | None = None
    """Parse the command's standard output as JSON and keep it under this name."""
    stop_on_failure: bool = False
    """A failing command ends the plan (a refused login leaves nothing to call)."""
    relogin: bool = False
    """When the command fails telling the user to log in, do that once and run it again."""


def _one(*words: str) -> Callable[[Context], Sequence[Sequence[str]]]:
    return lambda _context: [list(words)]


def call(tool: str, arguments: Mapping[str, Any], *, forms: bool = False) -> Step:
    """``call conformance TOOL ARGUMENTS``; ``forms``: answer the server's forms with defaults."""
    flags = ("--accept-defaults",) if forms else ()
    return Step(_one("call", *flags, SERVER, tool, json.dumps(arguments)))


LIST = Step(_one("list", "--json"), keep="list")
LOGIN = Step(_one("login", SERVER), stop_on_failure=True)
CATALOG = Step(_one("catalog", "--json"), keep="catalog")


def _listed(context: Context) -> set[str]:
    """Tools of our server that ``list --json`` showed (the ones the CLI kept)."""
    listing = context.outputs.get("list") or {}
    for server in listing.get("servers", []):
        if server.get("name") == SERVER:
            return {str(tool["name"]) for tool in server.get("tools", [])}
    return set()


def _calls_listed(table: Mapping[str, Mapping[str, Any]]) -> Step:
    """Call every tool ``list --json`` showed, arguments from ``table``: a refused one is not."""

    def words(context: Context) -> list[list[str]]:
        return [
            ["call", SERVER, name, json.dumps(table.get(name, {}))]
            for name in sorted(_listed(context))
        ]

    return Step(words)


def _context_calls(context: Context) -> list[list[str]]:
    """The tool calls ``MCP_CONFORMANCE_CONTEXT`` asks for (``toolCalls``), in order."""
    calls = context.suite.get("toolCalls") or []
    return [
        ["call", SERVER, str(item["name"]), json.dumps(item.get("arguments") or {})]
        for item in calls
    ]


def _echo_schema(context: Context) -> list[list[str]] | None:
    """Send back the focal tool's input schema exactly as the CLI's catalog holds it."""
    catalog = context.outputs.get("catalog") or {}
    for tool in catalog.get("tools", []):
        if tool.get("server") == SERVER and tool.get("tool") == "json_schema_2020_12_tool":
            schema = tool.get("input_schema")
            return [["call", SERVER, "json_schema_echo", json.dumps({"schema": schema})]]
    return None


INVALID_HEADER_TOOLS: dict[str, dict[str, Any]] = {
    "valid_tool": {"region": "us-west1"},
    "invalid_empty_header": {"value": "v"},
    "invalid_object_header": {"data": {"k": "v"}},
    "invalid_array_header": {"items": ["a"]},
    "invalid_null_header": {"nil": None},
    "invalid_number_header": {"score": 1.5},
    "invalid_duplicate_same_case": {"field1": "a", "field2": "b"},
    "invalid_duplicate_diff_case": {"field1": "a", "field2": "b"},
    "invalid_space_in_name": {"value": "v"},
    "invalid_colon_in_name": {"value": "v"},
    "invalid_non_ascii_name": {"value": "v"},
    "invalid_control_char_name": {"value": "v"},
}
"""Arguments for the tools of the invalid-header scenario (a tool missing here gets ``{}``)."""

AUTH_CALL = Step(_one("call", SERVER, "test-tool", "{}"), relogin=True)
"""What every authorization scenario's server offers once the client holds a token; a server
that moves to another authorization server sends the user back to ``login``."""

RELOGIN_HINT = f"agentty-tui login {SERVER}"
"""What the CLI tells a user whose server needs a (new) login."""

PLANS: dict[str, tuple[Step, ...]] = {
    "initialize": (LIST,),
    "tools_call": (call("add_numbers", {"a": 1, "b": 2}),),
    "sse-retry": (call("test_reconnection", {}),),
    "elicitation-sep1034-client-defaults": (
        call("test_client_elicitation_defaults", {}, forms=True),
    ),
    "request-metadata": (LIST,),
    "sep-2322-client-request-state": (
        LIST,
        call("test_mrtr_echo_state", {}, forms=True),
        call("test_mrtr_unrelated", {}, forms=True),
        call("test_mrtr_no_state", {}, forms=True),
        call("test_mrtr_no_result_type", {}, forms=True),
    ),
    "http-standard-headers": (LIST, call("test_headers", {}), call("my-hyphenated-tool", {})),
    "http-custom-headers": (LIST, Step(_context_calls)),
    "http-invalid-tool-headers": (LIST, _calls_listed(INVALID_HEADER_TOOLS)),
    "json-schema-ref-no-deref": (LIST,),
    "json-schema-2020-12-preservation": (CATALOG, Step(_echo_schema)),
}
"""Scenario -> the CLI commands that play it. ``auth/*`` scenarios: see ``plan_for``."""

AUTH_PLAN: tuple[Step, ...] = (LOGIN, AUTH_CALL)
"""Log in through the stand-in browser, then use the token (a step-up happens on the call)."""


def plan_for(scenario: str) -> tuple[Step, ...]:
    """The steps of one scenario; an unknown one gets a listing, which is all it can judge."""
    if scenario in PLANS:
        return PLANS[scenario]
    if scenario.startswith("auth/"):
        return AUTH_PLAN
    return (LIST,)


CLIENT_METADATA_URLS = {"auth/basic-cimd": "https://conformance-test.local/client-metadata.json"}
"""Scenarios whose user has published a Client ID Metadata Document: its URL, configured as
``oauth.clientMetadataUrl`` (the URL the scenario's authorization server knows)."""


def server_entry(url: str, suite: Mapping[str, Any], scenario: str | None = None) -> dict[str, Any]:
    """The config entry for the scenario's server; a pre-registered client goes in ``oauth``."""
    entry: dict[str, Any] = {"url": url}
    oauth: dict[str, Any] = {}
    if scenario in CLIENT_METADATA_URLS:
        oauth["clientMetadataUrl"] = CLIENT_METADATA_URLS[scenario]
    if suite.get("client_id"):
        oauth["clientId"] = suite["client_id"]
    if suite.get("client_secret"):
        oauth["clientSecret"] = suite["client_secret"]
    if oauth:
        entry["oauth"] = oauth
    return entry


def _cli() -> list[str]:
    """Our CLI as installed next to this interpreter (the console script a user runs)."""
    script = Path(sys.executable).parent / "agentty-tui"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "agentty_tui"]


def _environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        folder = home / name.lower()
        folder.mkdir()
        env[name] = str(folder)
    env.pop("AGENTTY_CONFIG", None)
    # The stand-in browser loads the authorization URL and follows the redirect back to the
    # CLI's loopback callback: the suite's authorization server approves at once.
    # $BROWSER names one program (Python's opener does not split it into words): a wrapper.
    browser = home / "browser"
    browser.write_text(
        f'#!/bin/sh\nexec {shlex.join([sys.executable, str(HERE / "browser.py")])} "$@"\n'
    )
    browser.chmod(0o700)
    env["BROWSER"] = str(browser)
    # No usable keyring on a CI machine, and none wanted on a developer's: tokens of a
    # scenario live in its own state folder, which the run deletes.
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return env


_running: subprocess.Popen[str] | None = None


def _stop_child(signum: int, _frame: FrameType | None) -> None:
    """The suite kills us on its timeout: take the CLI command down too, then go."""
    if _running is not None and _running.poll() is None:
        _running.kill()
    raise SystemExit(128 + signum)


def _run(argv: list[str], env: Mapping[str, str], deadline: float) -> tuple[int, str, str]:
    """Run one CLI command; its exit status, output and error text (also passed on to ours)."""
    global _running
    print(f"$ agentty-tui {shlex.join(argv[len(_cli()) :])}", file=sys.stderr, flush=True)
    _running = subprocess.Popen(
        argv, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    late = False
    try:
        out, err = _running.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _running.kill()
        out, err = _running.communicate()
        late = True
    finally:
        code = _running.returncode
        _running = None
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    if late:
        print("driver: the command did not finish in time", file=sys.stderr)
        code = 124
    sys.stderr.flush()
    return code, out, err


def main(argv: Sequence[str] | None = None) -> int:
    """Play ``MCP_CONFORMANCE_SCENARIO`` against the URL given as the last argument."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        print("usage: client.py URL (run by the conformance suite)", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    suite: dict[str, Any] = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    context = Context(url=words[-1], scenario=scenario, suite=suite)
    signal.signal(signal.SIGTERM, _stop_child)
    budget = float(os.environ.get(BUDGET_VARIABLE) or DEFAULT_BUDGET_SECONDS)
    deadline = time.monotonic() + budget
    worst = 0
    with tempfile.TemporaryDirectory(prefix="agentty-conformance-") as tmp:
        home = Path(tmp)
        config = home / "mcp.json"
        config.write_text(
            json.dumps(
                {"mcpServers": {SERVER: server_entry(context.url, suite, context.scenario)}},
                indent=2,
            )
        )
        env = _environment(home)
        base = [*_cli(), "--config", str(config)]
        for step in plan_for(scenario):
            commands = step.words(context) or ()
            for command in commands:
                code, out, err = _run([*base, *command], env, deadline)
                if code != 0 and step.relogin and RELOGIN_HINT in err:
                    login = _run([*base, "login", SERVER], env, deadline)[0]
                    if login == 0:
                        code, out, err = _run([*base, *command], env, deadline)
                worst = max(worst, code)
                if step.keep is not None:
                    try:
                        context.outputs[step.keep] = json.loads(out)
                    except json.JSONDecodeError:
                        context.outputs[step.keep] = None
                if code != 0 and step.stop_on_failure:
                    return code
    return worst


if __name__ == "__main__":
    raise SystemExit(main())
