"""Shared helpers for the scenarios' tests, fast and end to end: most of tests/scenarios/catalog/
uses them, and a few tests of the checker, the stage and the Spark app's known bugs.

For the fast tests: a checkpoint folder written in Spark's layout (`offsets/N`, `commits/N`), an
output log in the app's two-lines-per-message format, and a Stage built on them without
starting anything. For the e2e tests: one scenario run through the command line, its report
files checked.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.engine.stage import Stage
from scenarios.report.narration import Narrator
from spark_app.lines.output_line import OutputRow, format_lines
from tests.stopped_gently import run_stoppable

__all__ = ["checks_named", "idle_stage", "run_scenario", "write_batch", "write_output"]


def write_batch(
    checkpoint: Path,
    batch: int,
    ends: Mapping[int, int],
    topic: str = "Experience",
    committed: bool = True,
) -> None:
    """offsets/<batch> with one end offset per partition, and commits/<batch> if committed."""
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    meta = {"batchWatermarkMs": 0, "batchTimestampMs": 1, "conf": {}}
    source = {topic: {str(p): o for p, o in ends.items()}}
    (checkpoint / "offsets" / str(batch)).write_text(
        f"v1\n{json.dumps(meta)}\n{json.dumps(source)}"
    )
    if committed:
        (checkpoint / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def write_output(log: Path, values: Iterable[int], topic: str = "Experience") -> None:
    """The app's output lines for `values`, counted 1, 2, 3… in the order given."""
    log.parent.mkdir(parents=True, exist_ok=True)
    rows = [OutputRow(topic, str(v), str(v), n) for n, v in enumerate(values, start=1)]
    log.write_text(format_lines(rows, datetime(2026, 1, 1)))


def idle_stage(root: Path) -> Stage:
    """A Stage on `root` that has started nothing (its folders are used as they are)."""
    return Stage(
        "test", RunSettings(), root, listeners=[Narrator(stream=io.StringIO(), rich=False).hear]
    )


def run_scenario(name: str, report_dir: Path, *options: str) -> dict[str, Any]:
    """Run one scenario as a user does, in --fast mode; check the report files; return its JSON."""
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            name,
            "--fast",
            "--report",
            str(report_dir),
            *options,
        ],
        cwd=PROJECT_ROOT,
        timeout=1200,
    )
    assert done.returncode == 0, (
        done.stdout[-6000:] + done.stderr[-3000:] + _process_tails(report_dir / name / "processes")
    )
    return passed_report(name, report_dir)


def passed_report(name: str, report_dir: Path) -> dict[str, Any]:
    """The scenario's JSON report, after checking that it and its JUnit and picture say passed
    and that nothing the scenario started is still running."""
    result: dict[str, Any] = json.loads((report_dir / f"{name}.json").read_text())
    assert result["verdict"] == "passed"
    assert result["checks"] and all(c["held"] for c in result["checks"])
    suite = ET.parse(report_dir / "junit.xml").getroot()
    assert suite.get("failures") == "0" and suite.get("errors") == "0"
    assert (report_dir / f"{name}.svg").read_text().startswith("<svg ")
    # Nothing the scenario started is still running.
    leftovers = subprocess.run(["pgrep", "-f", str(report_dir)], capture_output=True, text=True)
    assert leftovers.stdout.strip() == ""
    return result


def _process_tails(folder: Path, lines: int = 12) -> str:
    """The last lines each process of a failed run printed: what CI shows of why it failed."""
    tails = []
    for out in sorted(folder.glob("*.out")):
        tail = out.read_text(errors="replace").splitlines()[-lines:]
        tails.append(
            f"\n--- {out.name} (last {len(tail)} lines)\n" + "\n".join(t[:300] for t in tail)
        )
    return "".join(tails)


def checks_named(result: dict[str, Any], words: str) -> list[dict[str, Any]]:
    """The checks whose label (`Step title › check name`) holds `words`."""
    return [c for c in result["checks"] if words in c["label"]]
