"""`python -m scenarios nemesis` end to end, as a user runs it: CI's two minutes with a fixed seed
on the default stack, and the nightly soaks (docs/testing.md#nightly, docs/nemesis.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scenarios.checker.fault_history import HISTORY_FILE, fault_spans, read_history
from scenarios.engine.faults.schedule import draw_schedule
from scenarios.engine.settings import PROJECT_ROOT
from tests.stopped_gently import run_stoppable

# Its two minutes on the default stack, as root, draw a pause, a cut, a full disk, a SIGTERM
# and a kill in the first 41 s, then more of each.
CI_SEED = 30


def _nemesis(report: Path, *options: str, timeout: float) -> dict[str, Any]:
    """Run the nemesis into `report`; its scenario report (checked to exist) as JSON."""
    done = run_stoppable(
        [sys.executable, "-m", "scenarios", "nemesis", *options, "--report", str(report)],
        cwd=PROJECT_ROOT,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-3000:]
    assert "replay:" not in done.stdout  # printed on a failure only
    return json.loads((report / "nemesis.json").read_text())


def _held_on_every_count(result: dict[str, Any], report: Path, seed: int, minutes: float) -> None:
    """What a user checks after a soak: the verdict, the schedule replayed, every fault healed,
    the history beside the run, the bands on the picture, nothing left running."""
    assert result["verdict"] == "passed", result.get("error")
    facts = result["facts"]["nemesis"]
    assert (facts["seed"], facts["minutes"]) == (seed, minutes)
    assert facts["verdict"]["ok"] and facts["verdict"]["missing"] == []
    assert facts["faults_applied"] >= 3
    history = read_history(report / "nemesis" / HISTORY_FILE)
    assert history[0].event == "run" and f"--seed {seed}" in history[0].detail
    # The faults applied are the schedule's, drawn again from the seed: number for number.
    schedule = draw_schedule(seed, minutes, facts["kinds"], fast=True)
    planned = {f.number: f.kind for f in schedule.faults}
    spans = fault_spans(history)
    assert len(spans) == facts["faults_applied"]
    assert all(planned[s.number] == s.kind for s in spans)
    assert all(s.end is not None for s in spans), [s.words() for s in spans]
    starts = [e for e in history if e.event == "start"]
    assert len(starts) == facts["restarts"] + 1
    bands = result["facts"]["timeline"]["fault_bands"]
    assert [b["label"] for b in bands] == [s.label() for s in spans]
    assert (report / "nemesis.svg").is_file()
    left = subprocess.run(["pgrep", "-f", str(report)], capture_output=True, text=True)
    assert left.stdout == ""


@pytest.mark.e2e
def test_two_minutes_of_faults_with_a_fixed_seed_count_every_value_once(tmp_path: Path) -> None:
    report = tmp_path / "reports"
    result = _nemesis(report, "--minutes", "2", "--seed", str(CI_SEED), "--fast", timeout=1500)
    _held_on_every_count(result, report, CI_SEED, 2.0)


@pytest.mark.e2e
@pytest.mark.nightly
@pytest.mark.parametrize(
    "minutes, options",
    [
        pytest.param(30.0, (), id="default-stack-30-min"),
        pytest.param(10.0, ("--checkpoint-store", "hdfs"), id="hdfs-10-min"),
        pytest.param(10.0, ("--checkpoint-store", "s3"), id="s3-10-min"),
        pytest.param(10.0, ("--stack", "apache/connector", "--brokers", "3"), id="brokers-10-min"),
    ],
)
def test_a_soak_under_faults_counts_every_value_once(
    tmp_path: Path, minutes: float, options: tuple[str, ...]
) -> None:
    report = tmp_path / "reports"
    args = ("--minutes", f"{minutes:g}", "--seed", str(CI_SEED), "--fast", *options)
    result = _nemesis(report, *args, timeout=minutes * 60 + 1800)
    _held_on_every_count(result, report, CI_SEED, minutes)
