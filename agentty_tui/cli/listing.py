"""``list`` and ``catalog``: every server connected, the settled model rendered, then stopped.

The stdio servers start before the SDK is imported, with the bridge; the model (in
``--host``'s lens) is rendered by ``cli.report`` in a thread of its own while the bridge stops
the servers.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentty_tui.cli.context import chosen_host, open_config, trusted, warn_about
from agentty_tui.cli.output import say, say_json
from agentty_tui.config.trust import TrustGate
from agentty_tui.config.workspace import Workspace
from agentty_tui.errors import ConfigError, UsageError

if TYPE_CHECKING:
    # Types alone: the bridge and the live model are imported where the servers start.
    from agentty_tui.bridge.early import EarlyStarts
    from agentty_tui.model import PluginModel

__all__ = [
    "SETTLE_MARGIN",
    "Output",
    "cmd_catalog",
    "cmd_list",
    "started_early",
]


SETTLE_MARGIN = 5.0
"""Seconds ``list`` and ``catalog`` wait beyond the longest connect timeout."""


async def started_early(store: Workspace, trust: bool, early: EarlyStarts) -> None:
    """Start (in ``early``) the stdio servers a bridge of ``store`` would start, before the
    caller imports the SDK; a config that does not load starts none (the bridge says why)."""
    import anyio.to_thread

    from agentty_tui.bridge.early import loaded_with_version

    try:
        version, config = await anyio.to_thread.run_sync(loaded_with_version, store)
    except ConfigError:
        return
    if version is not None:
        early.keep_loaded(version, config)  # the bridge then reads the files once, not twice
    await early.start(config, TrustGate(everything=trust))


async def _settled_output(
    path: Path | None, args: argparse.Namespace, render: Callable[[PluginModel], Output]
) -> Output:
    """``render`` of the model (in ``--host``'s lens) once every server settled. The stdio
    servers start first, then the SDK is imported, with the bridge; ``render`` runs in a
    thread while the bridge stops the servers (:func:`_rendered_while_closing`)."""
    from agentty_tui.bridge.early import EarlyStarts

    store = open_config(path, args)
    async with EarlyStarts() as early:
        await started_early(store, trusted(args), early)
        return await _rendered_while_closing(store, args, early, render)


async def _rendered_while_closing(
    store: Workspace,
    args: argparse.Namespace,
    early: EarlyStarts,
    render: Callable[[PluginModel], Output],
) -> Output:
    """``render`` of the settled model of a bridge on ``store``, run in a thread started once
    every server settled, while the bridge stops them.

    The render counts tokens: the counts kept from earlier runs are read, and the encoding is
    loaded only for a definition not counted before. Its load holds the interpreter's lock
    (about 0.5 to 2 s): started before the handshakes it stalled them all; started after them
    it overlaps only the servers' stop, which is mostly waiting for them to exit. The new
    counts are saved for the next run in the same thread.
    """
    import anyio.to_thread

    from agentty_tui.bridge import Bridge
    from agentty_tui.catalog import TOKEN_COUNTER
    from agentty_tui.catalog.host_lens import host_lens

    rendering = _Rendering(render, TOKEN_COUNTER.save)
    async with Bridge(store, trust=trusted(args), early=early) as bridge:
        if bridge.snapshot.config_error:
            raise ConfigError(bridge.snapshot.config_error)
        config = bridge.config
        warn_about(config, args, runs_servers=True)
        timeout = max((s.connect_timeout for s in config.servers), default=0.0) + SETTLE_MARGIN
        model = await bridge.settled(timeout)
        if model.config_error:
            raise ConfigError(model.config_error)
        rendering.start(host_lens(model, chosen_host(args)))
    return await anyio.to_thread.run_sync(rendering.result)


Output = str | dict[str, Any]
"""What a command renders: text for ``say``, or a JSON value for ``say_json``."""


def _say_output(output: Output) -> None:
    """Print what a command rendered, by its kind."""
    if isinstance(output, str):
        say(output)
    else:
        say_json(output)


class _Rendering:
    """A command's output rendered in a thread of its own, then ``after`` (in that thread)."""

    def __init__(
        self, render: Callable[[PluginModel], Output], after: Callable[[], object]
    ) -> None:
        self._render = render
        self._after = after
        self._thread: threading.Thread | None = None
        self._output: Output | None = None
        self._error: BaseException | None = None

    def start(self, model: PluginModel) -> None:
        """Render ``model`` in a new thread."""
        self._thread = threading.Thread(target=self._run, args=(model,), name="render", daemon=True)
        self._thread.start()

    def _run(self, model: PluginModel) -> None:
        try:
            self._output = self._render(model)
            self._after()
        except BaseException as exc:  # re-raised in the caller's thread by ``result``
            self._error = exc

    def result(self) -> Output:
        """The output, once rendered (blocking); the render's exception, raised here."""
        assert self._thread is not None, "start() was not called"
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._output is not None
        return self._output


async def cmd_list(path: Path | None, args: argparse.Namespace) -> int:
    """Connect every server concurrently, wait until each settled, print them, stop them."""
    from agentty_tui.catalog import project_catalog
    from agentty_tui.cli.report import model_json, model_text

    def render(model: PluginModel) -> Output:
        catalog = project_catalog(model)
        if args.json:
            return model_json(model, catalog)
        return model_text(model, catalog, workspace=path is None)

    _say_output(await _settled_output(path, args, render))
    return 0


async def cmd_catalog(path: Path | None, args: argparse.Namespace) -> int:
    """Print the wire catalog the model would see."""
    if args.budget is not None and args.budget < 0:
        raise UsageError("--budget must be zero or more")
    if args.token_budget is not None and args.token_budget < 0:
        raise UsageError("--token-budget must be zero or more")
    from agentty_tui.catalog import project_catalog
    from agentty_tui.catalog.host_limits import host_limits
    from agentty_tui.catalog.tokens import DEFAULT_FAMILY
    from agentty_tui.cli.report import catalog_json, catalog_text

    def render(model: PluginModel) -> Output:
        # In a host's lens, that host's own ceiling cuts the list as the gateway cuts it for
        # that host, when it is tighter than the tool budget.
        limits = host_limits(chosen_host(args))
        budget = model.tool_budget if args.budget is None else args.budget
        ceiling = None if limits is None else limits.ceiling_under(budget)
        catalog = project_catalog(
            model,
            budget=budget if ceiling is None else ceiling,
            token_budget="model" if args.token_budget is None else args.token_budget,
            # ... and counts the token budget in that host's model family, as the gateway does.
            family=DEFAULT_FAMILY if limits is None else limits.family,
        )
        if args.json:
            return catalog_json(catalog, limits)
        return catalog_text(catalog, limits)

    _say_output(await _settled_output(path, args, render))
    return 0
