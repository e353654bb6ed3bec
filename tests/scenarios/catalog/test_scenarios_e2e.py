"""Each scenario, run as a user runs it (`python -m scenarios run NAME --fast --report DIR`), must pass.

These start a broker, the producer and the Spark app several times each: marked e2e, run with
`pytest --slow`.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from tests.scenarios.more_helpers import run_scenario

# The seed's first, on the default stack (Apache Kafka, Spark's connector); its other two run on
# all four stacks in test_stacks_e2e.py, and the later scenarios have their own e2e tests.
NAMES = ["endless-retention"]


@pytest.mark.e2e
@pytest.mark.parametrize("name", NAMES)
def test_scenario_passes_in_fast_mode(name: str, tmp_path: Path) -> None:
    report_dir = tmp_path / "reports"
    result = run_scenario(name, report_dir)  # verdict, checks, JUnit, picture, no leftovers
    suite = ET.parse(report_dir / "junit.xml").getroot()
    assert int(suite.get("tests", "0")) == len(result["checks"])


def test_unknown_scenario_is_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, "-m", "scenarios", "run", "no-such-thing"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no scenario named no-such-thing" in done.stderr


def test_list_names_the_three_seed_scenarios() -> None:
    done = subprocess.run([sys.executable, "-m", "scenarios", "list"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for name in ("endless-retention", "short-retention", "checkpoint-reset"):
        assert name in done.stdout
