"""Tests of agentty_tui.gateway.daemon."""
