"""One exhibit run as a user runs it (`run known-bugs --exhibits TICKET --fast`), with what
every exhibit's e2e test checks first: the outcome is the one the table records for the line
the run used, and the check named by the bug's title held, in the exhibit's own step.

Usage: `result, seen, checks = run_exhibit(tmp_path, bug_named("SPARK-53560"))`
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spark_app.lines.known_bug_table import KnownBug, line_of
from tests.scenarios.more_helpers import run_scenario

__all__ = ["run_exhibit"]


def run_exhibit(
    tmp_path: Path, bug: KnownBug
) -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]:
    """(the run's JSON report, the exhibit's facts, its checks by name)."""
    result = run_scenario("known-bugs", tmp_path / "reports", "--exhibits", bug.ticket)
    seen = result["facts"][bug.ticket]
    assert seen["outcome"] == bug.expected_on(line_of(seen["spark"]))
    checks = {c["name"]: c for c in result["checks"]}
    verdict = checks[f"{bug.ticket}: {bug.title}"]
    # Held, and reported under one of the exhibit's own steps (its title opens with the ticket).
    assert verdict["held"] and verdict["step"].startswith(bug.ticket)
    return result, seen, checks
