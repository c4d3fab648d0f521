"""Tests of agentty_tui.gateway.http."""
