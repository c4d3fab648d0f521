"""agentty_tui: a plugin manager for the MCP servers of an AI agent host.

Importing the package is cheap on purpose: the headless commands must not pay for the UI.
"""

__version__ = "0.1.0"
