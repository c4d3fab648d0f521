"""Claude Code as a host: its local-scope dialect, its switches for one project, their edits.

Claude Code has several parts a manager reads and writes: the servers of one project inside
``~/.claude.json`` (``local``: ``ClaudeLocalDialect``), the switches it obeys for a project
(``switches``: deny rules in its settings files, ``disabledMcpServers``, the ``.mcp.json``
approvals, read as ``ClaudeSwitches``), their edits written where Claude Code reads them
(``switching``), the move of our old in-entry switches to those (``migration``), the shape
of an entry it writes (``entries``), and the servers of the plugins it turns on
(``plugins``), read and never written.
"""

from agentty_tui.config.hosts.claude.local import PROJECTS_KEY, ClaudeLocalDialect

__all__ = ["PROJECTS_KEY", "ClaudeLocalDialect"]
