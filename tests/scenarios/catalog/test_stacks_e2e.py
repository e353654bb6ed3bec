"""The seed's two data-loss lessons on the stacks, as a user runs them:
`python -m scenarios matrix --stack all short-retention checkpoint-reset --fast --report DIR`.

CI runs short-retention (the lesson whose error lines differ most between the stand-ins and
the real pair) on the two stacks a user runs: the default, Apache Kafka read through Spark's
connector, and `--offline`'s, our broker read by our source. The four stacks, for both lessons,
are nightly to keep CI's hour (docs/testing.md#nightly): the two mixed stacks are each one
stand-in away from a stack CI runs.

A check that reads differently on a stand-in (our broker, our source) than on Apache Kafka read
through Spark's connector teaches something production will not do; the matrix must pass on
every stack, and the verdict and every check must read the same on all four (counts aside,
which depend on timing).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.stacks import OFFLINE, REAL, STACKS, Stack
from tests.stopped_gently import run_stoppable


@pytest.mark.e2e
def test_short_retention_holds_alike_on_the_default_and_the_offline_stack(tmp_path: Path) -> None:
    _holds_alike_on([REAL, OFFLINE], ["short-retention"], tmp_path)


@pytest.mark.e2e
@pytest.mark.nightly
def test_short_retention_holds_alike_on_all_four_stacks(tmp_path: Path) -> None:
    _holds_alike_on(list(STACKS), ["short-retention"], tmp_path)


@pytest.mark.e2e
@pytest.mark.nightly
def test_checkpoint_reset_holds_alike_on_all_four_stacks(tmp_path: Path) -> None:
    _holds_alike_on(list(STACKS), ["checkpoint-reset"], tmp_path)


def _holds_alike_on(stacks: list[Stack], names: list[str], tmp_path: Path) -> None:
    report = tmp_path / "reports"
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "matrix",
            "--stack",
            ",".join(s.name for s in stacks),
            *names,
            "--fast",
            "--report",
            str(report),
        ],
        cwd=PROJECT_ROOT,
        timeout=3000,
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-3000:]

    matrix = json.loads((report / "matrix.json").read_text())
    assert matrix["versions"] == [s.name for s in stacks]
    for stack, results in matrix["results"].items():
        assert [r["name"] for r in results] == names, stack
        assert all(r["verdict"] == "passed" for r in results), stack
    differing = [
        f"{r['scenario']}: {r['check']}: {r['cells']}"
        for r in matrix["rows"]
        if r["differs"] and r["check"] != "duration"
    ]
    assert differing == []
    assert (report / "matrix.html").is_file()
    assert all((report / s.folder / "index.html").is_file() for s in stacks)
    leftovers = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert leftovers.stdout.strip() == ""
