"""The demo's errors: what went wrong, said so that the CLI edge can print one clear line.

Usage:
    raise RetentionChangeError("the broker refused retention.ms: ...")
"""

from __future__ import annotations

__all__ = ["DemoError", "AppStartError", "RetentionChangeError"]


class DemoError(Exception):
    """Base of everything the demo raises on purpose."""


class AppStartError(DemoError):
    """One of the apps could not be started (bad command, missing Python, port taken)."""


class RetentionChangeError(DemoError):
    """The topic's retention.ms could not be changed on the broker."""
