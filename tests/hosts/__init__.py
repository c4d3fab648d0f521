"""Tests that ask the real host programs (Claude Code, Gemini CLI, Codex) what they do.

``install.sh`` installs the pinned programs into ``node_modules/`` here (git-ignored); every
test skips, with the reason, where a program is not installed. See docs/HOSTS_MEASURED.md.
"""
