"""The user's gateway daemon: one bridge a workspace, shared by every attached host and picker.

:mod:`.process` is the daemon (listening, attaching, idle exit); :mod:`.registry` who is
attached; :mod:`.sharing` which hosts share a bridge; :mod:`.picker_service` and
:mod:`.picker_asks` its side of an attached picker; :mod:`.http_handover` the HTTP endpoint
``serve --http --shared`` hands it.
"""
