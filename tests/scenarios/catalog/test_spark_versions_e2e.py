"""Spark versions end to end: `run spark-upgrade --fast` and a two-version matrix (marked e2e).

Both make PySpark 4.0.0's environment on first use (about 30 s with a warm uv cache, a minute
or two from PyPI), then reuse it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.spark_envs import SERVED_LINES, locked_spark_version
from tests.scenarios.more_helpers import checks_named, run_scenario

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
def test_a_matrix_of_two_versions_compares_every_check(tmp_path: Path) -> None:
    # checkpoint-reset: the shortest scenario with a restart on each side (about 1 min a
    # version against 2 to 3 for endless-retention), keeping CI's run under its hour.
    report = tmp_path / "matrix"
    versions = [OLDEST, locked_spark_version()]
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "matrix", "--spark", ",".join(versions),
         "checkpoint-reset", "--fast", "--report", str(report)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    matrix = json.loads((report / "matrix.json").read_text())
    assert matrix["versions"] == versions
    rows = {row["check"]: row for row in matrix["rows"]}
    assert rows["verdict"]["cells"] == {v: "PASSED" for v in versions}
    assert set(rows["earliest: started at Kafka's earliest offset"]["cells"]) == set(versions)
    suites = [s.get("name") for s in ET.parse(report / "junit.xml").getroot().iter("testsuite")]
    assert suites == [f"scenarios on PySpark {v}" for v in versions]
    for version in versions:
        run = json.loads((report / version / "checkpoint-reset.json").read_text())
        assert run["spark_version"] == version and run["verdict"] == "passed"
    assert "| checkpoint-reset | verdict | PASSED | PASSED |" in (report / "matrix.md").read_text()
