"""The errors launching raises: a process that would not start or died too soon, a wait that
ran out. Only a command line catches them, and prints one line.

Usage: `raise WaitTimeout("the broker to listen did not happen within 60 s")`
"""

from __future__ import annotations

__all__ = ["LaunchError", "ProcessError", "WaitTimeout"]


class LaunchError(Exception):
    """Base of everything starting, watching or stopping a process can fail with."""


class WaitTimeout(LaunchError):
    """A condition did not come true before its deadline."""


class ProcessError(LaunchError):
    """A managed process could not be started, or ended when it should not have."""
