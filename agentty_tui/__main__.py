"""``python -m agentty_tui``: the same entry point as the ``agentty-tui`` script."""

from agentty_tui.cli import run

run()
