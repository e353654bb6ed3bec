"""Spark versions end to end: `run spark-upgrade --fast`, and the museum's two exhibits in a
two-version matrix (`matrix --spark 4.0.0,4.2.0 known-bugs --exhibits …`); marked e2e.

Both make PySpark 4.0.0's environment on first use (about 30 s with a warm uv cache, a minute
or two from PyPI), then reuse it.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.spark_envs import SERVED_LINES, locked_spark_version
from spark_app.lines.known_bug_table import bug_named, line_of
from tests.scenarios.more_helpers import checks_named, run_scenario
from tests.stopped_gently import run_stoppable

OLDEST = SERVED_LINES[0]  # the oldest line's newest release with a served connector


@pytest.mark.e2e
def test_a_checkpoint_of_the_oldest_line_resumes_on_ours_and_back(tmp_path: Path) -> None:
    result = run_scenario("spark-upgrade", tmp_path / "reports")
    facts = result["facts"]
    assert (facts["spark_from"], facts["spark_to"]) == (OLDEST, locked_spark_version())
    assert checks_named(result, "Spark A left a pending batch")
    assert checks_named(result, "B replayed A's pending batch once")
    # The prediction is read from the checkpoint, and the rollback did what it said.
    assert facts["rollback_prediction"]["resumes"] in (True, False)
    assert checks_named(result, "the rollback does what the checkpoint predicts")
    assert facts["formats_left_by_b"]["log_versions"]["offsets"] == "v1"


@pytest.mark.e2e
@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_a_users_query_on_the_oldest_line_resumes_on_ours_and_back(tmp_path: Path) -> None:
    result = run_scenario(
        "spark-upgrade", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    facts = result["facts"]
    assert facts["query"].endswith("queries/count_per_key.py")
    assert checks_named(result, "Spark A left a pending batch")  # the crash on a record
    assert checks_named(result, "B committed A's pending batch")
    assert checks_named(result, "the rollback does what the checkpoint predicts")
    # The oracle, on our own line, over every record up to the last commit.
    assert checks_named(result, "nothing lost or doubled across A, B and the rollback")
    assert facts["time_spent"]["oracle"]["count"] == 1


EXHIBITS = ("SPARK-55058", "SPARK-54307")


@pytest.mark.e2e
def test_two_exhibits_hold_each_lines_outcome_in_a_matrix_of_two_versions(tmp_path: Path) -> None:
    """The museum as a regression user runs it: two exhibits on the oldest served line and on
    ours, one Kafka per line, each restart's outcome the one the table records for that line,
    and the matrix comparing them check by check."""
    report = tmp_path / "matrix"
    versions = [OLDEST, locked_spark_version()]
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "matrix",
            "--spark",
            ",".join(versions),
            "known-bugs",
            "--exhibits",
            ",".join(EXHIBITS),
            "--fast",
            "--report",
            str(report),
        ],
        cwd=PROJECT_ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    matrix = json.loads((report / "matrix.json").read_text())
    assert matrix["versions"] == versions
    rows = {row["check"]: row for row in matrix["rows"]}
    assert rows["verdict"]["cells"] == dict.fromkeys(versions, "PASSED")
    suites = [s.get("name") for s in ET.parse(report / "junit.xml").getroot().iter("testsuite")]
    assert suites == [f"scenarios on PySpark {v}" for v in versions]
    for version in versions:
        run = json.loads((report / version / "known-bugs.json").read_text())
        assert run["spark_version"] == version and run["verdict"] == "passed"
        checks = {c["name"]: c for c in run["checks"]}
        for ticket in EXHIBITS:
            bug = bug_named(ticket)
            seen = run["facts"][ticket]
            assert seen["spark"] == version and seen["outcome"] == bug.expected_on(line_of(version))
            assert checks[f"{ticket}: {bug.title}"]["held"]
        # The exhibits not asked for did not run, and both shared one Kafka start.
        assert {"SPARK-53103", "SPARK-12693", "SPARK-55271"}.isdisjoint(run["facts"])
        processes = report / version / "known-bugs" / "processes"
        assert len(list(processes.glob("broker*.out"))) == 1
    assert "| known-bugs | verdict | PASSED | PASSED |" in (report / "matrix.md").read_text()
