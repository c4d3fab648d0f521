"""Lease accounting for a session that step runtimes may still be calling through.

A step pins the sessions whose tools it advertised; a reload that replaces a server retires
the old session, which must then stay open until the last step that holds it has finished.
"""

from __future__ import annotations

__all__ = ["Leased"]


class Leased:
    """Counts leases; ``retire`` stops at once, or when the last lease is given back."""

    _leases = 0
    _retired = False

    def stop(self) -> None:
        """Stop now (the subclass's job)."""
        raise NotImplementedError

    def retire(self) -> None:
        """Stop once no step runtime holds the session any more."""
        self._retired = True
        if self._leases == 0:
            self.stop()

    def acquire(self) -> None:
        """Take a lease: the session stays open while a step that advertised it runs."""
        self._leases += 1

    def release(self) -> None:
        """Give a lease back; the last one stops a retired session."""
        self._leases -= 1
        if self._retired and self._leases == 0:
            self.stop()
