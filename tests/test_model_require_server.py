"""``PluginModel.require_server``: the server, or an error that names what is configured."""

from __future__ import annotations

import pytest

from agentty_tui.errors import UnknownServerError
from agentty_tui.model import PluginModel, ServerState


def test_require_server_returns_it_or_raises_naming_the_closest() -> None:
    model = PluginModel(
        servers=(
            ServerState(name="plain", status="connected"),
            ServerState(name="gated", status="failed"),
        )
    )
    assert model.require_server("gated") is model.servers[1]
    with pytest.raises(UnknownServerError) as caught:
        model.require_server("plian")
    assert str(caught.value) == "no server named 'plian' in the config; did you mean 'plain'?"
    assert caught.value.name == "plian"
