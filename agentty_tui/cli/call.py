"""``call``: one tool of one server called, its result printed.

On a terminal the server's questions are asked there (``cli.tty_elicit``) and its progress is
one updating line (``cli.tty_progress``); without one a form is declined (or answered with
its defaults, ``--accept-defaults``). Ctrl-C cancels the request before the server stops.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentty_tui.bridge.logs import default_log_dir, pointing_to_log
from agentty_tui.cli.context import load_config, trusted
from agentty_tui.cli.login import TerminalLoginUI
from agentty_tui.cli.output import say, say_json, warn
from agentty_tui.config import operations
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import ConfigError, OperationError, UnknownToolError, UsageError
from agentty_tui.specs import ServerConfig
from agentty_tui.terminal_text import clip, safe_block, safe_line

if TYPE_CHECKING:
    # Types alone: the SDK and the bridge's session are imported once the server starts.
    import anyio
    import anyio.abc
    import mcp_types as types
    from mcp.client.session import ClientRequestContext, ElicitationFnT

    from agentty_tui.bridge.call_hooks import CallHooks
    from agentty_tui.bridge.early import EarlyStarts
    from agentty_tui.bridge.session import ServerSession
    from agentty_tui.cli.tty_progress import TerminalProgress

__all__ = [
    "cmd_call",
    "parse_arguments",
]


def parse_arguments(text: str) -> dict[str, Any]:
    """The JSON object given to ``call``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UsageError('arguments must be a JSON object, e.g. \'{"text": "hi"}\'')
    return value


async def cmd_call(path: Path | None, args: argparse.Namespace) -> int:
    """Call one tool of one server and print its result; status 1 when the tool reports an error."""
    arguments = parse_arguments(args.arguments)
    store, loaded = load_config(path, args, runs_servers=True)
    config = operations.configured(loaded, args.server)
    if config.problem is not None:
        raise ConfigError(config.problem)
    TrustGate(everything=trusted(args)).refuse_untrusted(loaded, config, "was not started")
    from agentty_tui.bridge.early import EarlyStarts

    # The server starts first; the SDK is imported while it boots.
    async with EarlyStarts() as early:
        await early.start_one(config)
        return await _call(store, config, arguments, args, early)


async def _call(
    store: Workspace,
    config: ServerConfig,
    arguments: dict[str, Any],
    args: argparse.Namespace,
    early: EarlyStarts,
) -> int:
    """``cmd_call`` once the server is starting: connect, check the tool, call it, print."""

    from agentty_tui.bridge.call_hooks import CallHooks, decline, url_elicitations
    from agentty_tui.bridge.elicit import accept_defaults
    from agentty_tui.bridge.probe import open_server
    from agentty_tui.bridge.roots import server_roots
    from agentty_tui.call_result import output_mismatch
    from agentty_tui.cli.report import result_text
    from agentty_tui.cli.tty_elicit import TerminalAsker
    from agentty_tui.cli.tty_progress import TerminalProgress

    # Errors are raised once the session's task group is left, so they reach the command
    # line as themselves rather than wrapped in an exception group.
    problem: Exception | None = None
    # The pages a ``-32042`` refusal names (URL elicitation required), shown once the
    # session is left.
    pages: list[types.ElicitRequestURLParams] | None = None
    # A form: its defaults when told so, else asked on a terminal; where nobody can be asked
    # the server hears a decline (the capability is declared either way).
    elicitation: ElicitationFnT
    if args.accept_defaults:
        elicitation = _defaults_said(config.name, accept_defaults)
    elif sys.stdin.isatty() and sys.stderr.isatty():
        elicitation = TerminalAsker(config.name)
    else:
        elicitation = decline
    # A step-up the server asks for during the call is completed in the browser.
    login_ui = TerminalLoginUI(config.name)
    async with open_server(
        config,
        default_log_dir(),
        store.path,
        elicitation=elicitation,
        login_ui=login_ui,
        early=early,
        # The roots a bridge offers it (the entry's, else the project's): a server that asks
        # gets them, and tools gated on roots are not hidden.
        roots=server_roots(config, store.root),
    ) as session:
        state = session.state
        if state.status != "connected":
            error = pointing_to_log(state.error or "", session.log)
            problem = OperationError(f"server {args.server!r} did not connect: {error}")
        elif args.tool not in {t.name for t in state.tools}:
            problem = UnknownToolError(args.server, args.tool, [t.name for t in state.tools])
        else:
            output_schema = next(t for t in state.tools if t.name == args.tool).output_schema
            # Progress as one updating line, on a terminal only (a script reads a pipe).
            progress = (
                TerminalProgress(safe_line(f"{args.server} / {args.tool}"))
                if sys.stderr.isatty()
                else None
            )
            hooks = None
            if progress is not None:
                asking = elicitation

                async def ask_on_a_clear_line(
                    context: ClientRequestContext, params: types.ElicitRequestParams
                ) -> types.ElicitResult | types.ErrorData:
                    progress.clear()
                    return await asking(context, params)

                hooks = CallHooks(progress=progress, elicitation=ask_on_a_clear_line)
            try:
                outcome = await _call_interruptibly(session, args.tool, arguments, hooks, progress)
            except OperationError as exc:
                # The server's stderr an error quotes goes to its log: the message says where.
                problem = OperationError(pointing_to_log(str(exc), session.log))
                pages = url_elicitations(exc.__cause__)
            finally:
                if progress is not None:
                    progress.clear()
    if pages:
        raise _pages_first(config.name, args.tool, pages, elicitation)
    if problem is not None:
        raise problem
    if outcome is None:
        warn("the call was cancelled (Ctrl-C); the server was told")
        return 130  # the shell's status for a command SIGINT ended
    result = outcome
    mismatch = output_mismatch(output_schema, result)
    if args.json:
        say_json(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        if mismatch is not None:
            warn(f"the structured content does not match the tool's output schema: {mismatch}")
    else:
        say(result_text(result, output_schema))
    return 1 if result.is_error or mismatch is not None else 0


def _defaults_said(name: str, answer: ElicitationFnT) -> ElicitationFnT:
    """``answer`` (``accept_defaults``), saying on stderr why a form is declined when it
    requires a field without a default (the server only hears the decline)."""
    import mcp_types as types

    from agentty_tui.bridge.elicit import required_without_default

    async def said(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if isinstance(params, types.ElicitRequestFormParams):
            missing = required_without_default(params.requested_schema)
            if missing:
                # The names are the server's: clipped, and their controls made visible by warn.
                fields = ", ".join(repr(clip(field, 40)) for field in missing[:5])
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                warn(
                    f"{name} asked for a form that requires {fields}{more} without a default: "
                    "declined (without --accept-defaults, on a terminal, the form is asked)"
                )
        return await answer(context, params)

    return said


def _pages_first(
    server: str,
    tool: str,
    pages: list[types.ElicitRequestURLParams],
    elicitation: object,
) -> OperationError:
    """The error of a call refused until ``pages`` are opened (``-32042``), once they were
    shown: on a terminal (``elicitation`` is the ``TerminalAsker``) each is opened on a yes;
    without one the error lists them (made safe, domains apart) for the person to open."""
    from agentty_tui.cli.tty_elicit import TerminalAsker, pages_text

    if not isinstance(elicitation, TerminalAsker):
        print(safe_block(pages_text(pages)), file=sys.stderr)
        return OperationError(
            f"server {safe_line(server)!r} needs the {len(pages)} page(s) above opened in a "
            f"browser before {safe_line(tool)!r} can run (URL elicitation required); nothing "
            "was opened (standard input is not a terminal): open them yourself, then call "
            f"{safe_line(tool)!r} again once they are done"
        )
    opened = elicitation.open_pages_first(tool, pages)
    done = "once the page says you are done" if opened else "once you have opened the page(s)"
    return OperationError(
        f"{safe_line(tool)!r} on {safe_line(server)!r} was refused until its page(s) are "
        f"visited (URL elicitation required): call it again {done}"
    )


async def _call_interruptibly(
    session: ServerSession,
    tool: str,
    arguments: dict[str, Any],
    hooks: CallHooks | None,
    progress: TerminalProgress | None = None,
) -> types.CallToolResult | None:
    """The call's result, or ``None`` when Ctrl-C (SIGINT) cancelled it; ``progress``'s line
    is drawn again every second while the call runs (its time run counts on).

    Python turns SIGINT into a ``KeyboardInterrupt`` raised wherever the loop happens to be,
    and the app then stops the server before the request was ever cancelled: the server never
    hears it. While the call runs, SIGINT cancels the call's scope instead: the cancellation
    reaches the SDK's request, which sends ``notifications/cancelled``, and only then does the
    session stop. The call's own errors come out as themselves.
    """
    if threading.current_thread() is not threading.main_thread():  # no signals to take
        return await session.call_tool(tool, arguments, hooks)
    import signal

    import anyio

    results: list[types.CallToolResult] = []
    failures: list[Exception] = []

    async def cancel_on_interrupt(
        scope: anyio.CancelScope, *, task_status: anyio.abc.TaskStatus[None]
    ) -> None:
        with anyio.open_signal_receiver(signal.SIGINT) as interrupts:
            task_status.started()
            async for _signal in interrupts:
                scope.cancel()
                return

    async with anyio.create_task_group() as group:
        await group.start(cancel_on_interrupt, group.cancel_scope)
        if progress is not None:
            group.start_soon(progress.tick)
        try:
            results.append(await session.call_tool(tool, arguments, hooks))
        except Exception as exc:  # raised below, outside the task group (not in a group)
            failures.append(exc)
        group.cancel_scope.cancel()
    if failures:
        raise failures[0]
    return results[0] if results else None
