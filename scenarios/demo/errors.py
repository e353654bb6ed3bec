"""The demo's errors: what went wrong, said so that the CLI edge can print one clear line.

Usage:
    raise RetentionChangeError("the broker refused retention.ms: ...")
"""

from __future__ import annotations

__all__ = ["DemoError", "AppStartError", "PreviousRunStillGoing", "RetentionChangeError"]


class DemoError(Exception):
    """Base of everything the demo raises on purpose."""


class AppStartError(DemoError):
    """One of the apps could not be started (bad command, missing Python, port taken)."""


class PreviousRunStillGoing(AppStartError):
    """An earlier run's apps still hold the broker's port or write to the demo's folders."""


class RetentionChangeError(DemoError):
    """The topic's retention.ms could not be changed on the broker."""
