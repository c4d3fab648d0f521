"""Tests of agentty_tui.gateway.stdio."""
