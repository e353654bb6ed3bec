"""The museum on the locked Spark, as a user runs it: `python -m scenarios run known-bugs
--exhibits SPARK-55058,SPARK-54307 --fast --report DIR`.

Two exhibits on one Kafka start (about 2 minutes on a quiet machine, 3 under load): each
restart's outcome is the one the table records for the locked line, and the report keeps it.
Marked e2e, run with `pytest --slow`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.engine.spark_envs import locked_spark_version
from spark_app.known_bug_table import bug_named, line_of
from tests.scenarios.more_helpers import run_scenario

pytestmark = pytest.mark.e2e


def test_two_exhibits_hold_the_tables_outcome_on_the_locked_line(tmp_path: Path) -> None:
    result = run_scenario("known-bugs", tmp_path / "reports", "--exhibits", "SPARK-55058,SPARK-54307")
    version = locked_spark_version()
    checks = {c["name"]: c for c in result["checks"]}
    for ticket in ("SPARK-55058", "SPARK-54307"):
        bug = bug_named(ticket)
        seen = result["facts"][ticket]
        assert seen["spark"] == version and seen["outcome"] == bug.expected_on(line_of(version))
        assert checks[f"museum: {ticket}: {bug.title}"]["held"]
    # The exhibits not asked for did not run; the pointers are not run either.
    assert {"SPARK-53103", "SPARK-12693", "SPARK-55271"}.isdisjoint(result["facts"])
    # Both shared the one Kafka: one broker start in the run's processes.
    processes = tmp_path / "reports" / "known-bugs" / "processes"
    assert len(list(processes.glob("broker*.out"))) == 1
