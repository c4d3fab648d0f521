"""The gateway over the host's pipe: ``serve`` with a bridge of its own, or ``serve --shared``.

:mod:`.pipe` reads and writes the pipe on the event loop (:mod:`.descriptors` underneath);
:mod:`.serve` runs a bridge in the serving process; :mod:`.shared` joins the pipe to the user's
daemon instead.
"""
