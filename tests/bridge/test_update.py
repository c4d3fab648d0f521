"""``Bridge.plugin_update`` against real subprocess servers: the entry is rewritten, and only
that server is restarted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.config import ConfigStore
from agentty_tui.errors import UnknownServerError
from agentty_tui.model import StdioSpec
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import plain_argv

pytestmark = pytest.mark.anyio

SETTLE = 20.0


async def test_update_restarts_that_server_only(write_config: WriteConfig, log_dir: Path) -> None:
    path = write_config(
        {
            "alpha": stdio_entry(plain_argv("--name", "alpha")),
            "beta": {**stdio_entry(plain_argv("--name", "beta")), "tools": {"exclude": ["echo"]}},
            "gamma": stdio_entry(plain_argv("--name", "gamma")),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        await bridge.settled(SETTLE)
        pids = {name: bridge.server_pid(name) for name in ("alpha", "beta", "gamma")}
        assert None not in pids.values()
        argv = plain_argv("--name", "beta2")
        spec = StdioSpec(command=argv[0], args=tuple(argv[1:]), env={"GREETING": "hi"})
        await bridge.plugin_update("beta", spec)
        model = await bridge.settled(SETTLE)
        beta = model.server("beta")
        assert beta is not None and beta.status == "connected", beta
        assert beta.info is not None and beta.info.name == "beta2"
        assert bridge.server_pid("alpha") == pids["alpha"]
        assert bridge.server_pid("gamma") == pids["gamma"]
        assert bridge.server_pid("beta") not in (None, pids["beta"])
        entry = json.loads(path.read_text())["mcpServers"]["beta"]
        assert entry["args"] == list(argv[1:])
        assert entry["env"] == {"GREETING": "hi"}
        assert entry["tools"] == {"exclude": ["echo"]}  # the rest of the entry stays
        with pytest.raises(UnknownServerError):
            await bridge.plugin_update("nope", spec)
