"""The errors scenarios raise; only the command line catches them and prints one line.

A process that would not start or died too soon, and a wait that ran out, are launch's
(`launch.errors.ProcessError`, `WaitTimeout`, both a `LaunchError`): the command lines catch
those beside these, with the same one line and exit code.

Usage: `raise StepFailed("stop the Spark app before deleting its checkpoint")`
"""

from __future__ import annotations

__all__ = [
    "ScenarioError",
    "StepFailed",
    "UnknownScenario",
]


class ScenarioError(Exception):
    """Base of everything a scenario run can fail with (beside launch's `LaunchError`)."""


class UnknownScenario(ScenarioError):
    """A scenario name that is not in the registry."""


class StepFailed(ScenarioError):
    """A step could not do what it set out to do (not an expectation that did not hold)."""
