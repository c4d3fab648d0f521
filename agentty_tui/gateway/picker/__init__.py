"""A picker attached to the gateway daemon: the line protocol, the view, the remote source.

:mod:`.link` is the protocol both sides speak; :mod:`.view` what the picker shows of the daemon;
:mod:`.remote_source` the picker's source of snapshots over the link. The daemon's side of the
link lives in :mod:`agentty_tui.gateway.daemon`.
"""
