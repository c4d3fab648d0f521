"""Tests of agentty_tui.gateway.host."""
