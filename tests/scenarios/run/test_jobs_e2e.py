"""`run -j 2` end to end on the offline stack: two scenarios at once, each its own process, on
the run's one Kafka, one report. Nightly: two Spark apps side by side on CI's two cores add
about 2.5 minutes (docs/testing.md#nightly); the fast tests hold the jobs' command lines and the
merge."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.report.verdicts import read_result
from tests.stopped_gently import run_stoppable

NAMES = ("checkpoint-reset", "endless-retention")


@pytest.mark.e2e
@pytest.mark.nightly
def test_two_jobs_run_side_by_side_into_one_report(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            *NAMES,
            "--fast",
            "--offline",
            "-j",
            "2",
            "--report",
            str(report),
        ],
        cwd=PROJECT_ROOT,
        timeout=1200,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    started = [line for line in done.stdout.splitlines() if "started (" in line]
    assert any("2 running" in line for line in started), started  # both at once, not in turn
    kafkas = set()
    for name in NAMES:
        assert read_result(report / f"{name}.json").verdict == "passed"
        said = (report / "jobs" / f"{name}.out").read_text()
        assert "Step 1" in said
        kafkas |= set(re.findall(r"Kafka at (\S+) \(the run's\)", said))
    assert (
        len(kafkas) == 1 and f"Kafka at {kafkas.pop()} for this run's" in done.stdout
    )  # one broker
    suites = ET.parse(report / "junit.xml").getroot()
    assert {case.get("classname") for case in suites.iter("testcase")} == {
        f"scenarios.{n}" for n in NAMES
    }
