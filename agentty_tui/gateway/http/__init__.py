"""``serve --http``: the gateway over Streamable HTTP, on 127.0.0.1 only.

:mod:`.endpoint` serves it (its guard and its sessions), :mod:`.answers` how a 2025-era request is
answered, :mod:`.loopback` where it listens, :mod:`.token` its bearer token, and :mod:`.shared`
``serve --http --shared``, which hands its listening socket to the user's daemon.
"""
