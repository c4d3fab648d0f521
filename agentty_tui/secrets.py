"""Masking of secret values (env values, HTTP headers) wherever they are shown."""

from __future__ import annotations

__all__ = ["mask_value"]


def mask_value(value: str) -> str:
    """A value as it may be shown: never the value itself, only a hint of its length."""
    if not value:
        return ""
    return "•" * min(len(value), 8)
