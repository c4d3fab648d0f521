"""``${VAR}`` expansion in server specs, at connect time only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentty_tui.bridge import Bridge
from agentty_tui.bridge.expand import ExpansionError, expand_spec
from agentty_tui.config import ConfigStore
from agentty_tui.model import HttpSpec, StdioSpec
from tests.conftest import WriteConfig
from tests.helpers import stdio_entry
from tests.servers import plain_argv


def test_expands_every_field_of_a_stdio_spec() -> None:
    spec = StdioSpec(
        command="${BIN}/server",
        args=("--token", "${TOKEN}", "${MISSING:-fallback}", "$NOT_A_REFERENCE"),
        env={"KEY": "${TOKEN}", "EMPTY": "${EMPTY:-dflt}"},
        cwd="/tmp",
    )
    out = expand_spec(spec, {"BIN": "/opt", "TOKEN": "s3", "EMPTY": ""})
    assert out == StdioSpec(
        command="/opt/server",
        args=("--token", "s3", "fallback", "$NOT_A_REFERENCE"),
        env={"KEY": "s3", "EMPTY": "dflt"},
        cwd="/tmp",
    )
    assert spec.args[1] == "${TOKEN}"  # the original is untouched


def test_expands_url_and_headers() -> None:
    spec = HttpSpec(url="http://${HOST:-localhost}/mcp", headers={"Authorization": "Bearer ${T}"})
    out = expand_spec(spec, {"T": "abc"})
    assert out == HttpSpec(url="http://localhost/mcp", headers={"Authorization": "Bearer abc"})


def test_unset_variable_names_itself_and_where() -> None:
    with pytest.raises(ExpansionError, match=r"'TOKEN' is not set \(it is used in env 'KEY'\)"):
        expand_spec(StdioSpec(command="x", env={"KEY": "${TOKEN}"}), {})


@pytest.mark.anyio
async def test_bridge_expands_at_connect_and_never_writes_back(
    write_config: WriteConfig, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTTY_TEST_NAME", "from-env")
    path = write_config(
        {
            "plain": stdio_entry(plain_argv("--name", "${AGENTTY_TEST_NAME}")),
            "unset": stdio_entry(plain_argv("--name", "${AGENTTY_TEST_UNSET}")),
        }
    )
    async with Bridge(ConfigStore(path), log_dir=log_dir) as bridge:
        model = await bridge.settled(20)
        plain, unset = model.servers
        assert plain.info is not None and plain.info.name == "from-env"
        assert unset.status == "failed"
        assert "'AGENTTY_TEST_UNSET' is not set" in (unset.error or "")
        await bridge.tool_set_enabled("plain", "echo", False)
    written = json.loads(path.read_text())["mcpServers"]["plain"]["args"]
    assert written[-1] == "${AGENTTY_TEST_NAME}"
