"""The errors scenarios raise; only the command line catches them and prints one line.

Usage: `raise WaitTimeout("the Spark app did not write value 10 within 60 s")`
"""

from __future__ import annotations

__all__ = [
    "ProcessError",
    "ScenarioError",
    "StepFailed",
    "UnknownScenario",
    "WaitTimeout",
]


class ScenarioError(Exception):
    """Base of everything a scenario run can fail with."""


class UnknownScenario(ScenarioError):
    """A scenario name that is not in the registry."""


class WaitTimeout(ScenarioError):
    """A condition did not come true before its deadline."""


class ProcessError(ScenarioError):
    """A managed process could not be started, or ended when it should not have."""


class StepFailed(ScenarioError):
    """A step could not do what it set out to do (not an expectation that did not hold)."""
