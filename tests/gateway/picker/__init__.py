"""Tests of agentty_tui.gateway.picker."""
