"""The stores' one error: what went wrong and what to do, in one line (the CLI prints it)."""

from __future__ import annotations

__all__ = ["StoreError"]


class StoreError(Exception):
    """A store that cannot be fetched, started or reached; `str()` is the line to print."""
