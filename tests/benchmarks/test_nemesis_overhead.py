"""nemesis_overhead.py: a nemesis run's report in, faults per minute and recovery per kind out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.nemesis_overhead import main

FACTS = {
    "seed": 30,
    "minutes": 2.0,
    "kinds": ["kill", "pause", "disk"],
    "faults_planned": 12,
    "faults_applied": 7,
    "applied_by_kind": {"kill": 3, "pause": 2, "disk": 2},
    "faults_per_minute": 3.5,
    "restarts": 4,
    "recovery_sec": {"kill": [12.0, 20.5, None], "pause": [1.5, 2.5], "disk": [None, None]},
    "verdict": {"ok": True},
}


def test_a_finished_run_is_read_and_told_per_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "nemesis.json").write_text(json.dumps({"facts": {"nemesis": FACTS}}))
    assert main(["--from", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("seed 30, 2 min of kill, pause, disk (load average ")
    assert lines[1] == "faults planned 12 (6.0/min), applied 7 (3.5/min), app restarts 4"
    rows = {line.split()[0]: line.split()[1:] for line in lines[3:-1]}
    assert rows == {
        "disk": ["2", "-", "-", "2"],
        "kill": ["3", "16.2", "20.5", "1"],
        "pause": ["2", "2.0", "2.5", "0"],
    }
    assert lines[-1] == "checker: OK"
