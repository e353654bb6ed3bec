"""The run writes Spark's class archive between scenarios until it is in place, and stops the
writer with the run: a stand-in `python` records each start and answers as the command would."""

from __future__ import annotations

import io
import os
import signal
import stat
import time
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.report.narration import Narrator
from scenarios.run.runner import run_scenarios


def stand_in_python(tmp_path: Path, answer: str) -> Path:
    """A `python` that appends its arguments and pid to starts.txt, then `answer`s (shell)."""
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\necho "$$ $*" >> {tmp_path}/starts.txt\n{answer}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def run_three(tmp_path: Path, python: Path, class_archive: bool = True) -> list[str]:
    def held(stage: Stage) -> None:
        time.sleep(0.5)  # long enough for a started command to have answered before the next
        with stage.step(Step("end", happens="a check")):
            stage.expect(check("it held", True, "yes", "yes"))

    def scenario(name: str) -> Scenario:
        return Scenario(name=name, title=name, summary="", origin="test", run=held)

    # No run-wide Kafka: these stand-ins need none, and it would take seconds to start.
    settings = RunSettings(
        timings=Timings.fast(),
        fast=True,
        spark_python=str(python),
        class_archive=class_archive,
        share_kafka=False,
    )
    results = run_scenarios(
        [scenario("a"), scenario("b"), scenario("c")], settings, Narrator(stream=io.StringIO())
    )
    assert [r.verdict for r in results] == ["passed"] * 3
    starts = tmp_path / "starts.txt"
    return starts.read_text().splitlines() if starts.exists() else []


def test_before_each_scenario_until_there_is_something_to_write(tmp_path: Path) -> None:
    starts = run_three(tmp_path, stand_in_python(tmp_path, "exit 3"))
    assert [line.split(" ", 1)[1] for line in starts] == ["-m spark_app class-archive"] * 3


def test_once_it_is_in_place_no_more_starts(tmp_path: Path) -> None:
    assert len(run_three(tmp_path, stand_in_python(tmp_path, "exit 0"))) == 1


def test_a_writer_still_at_work_is_stopped_with_the_run(tmp_path: Path) -> None:
    starts = run_three(tmp_path, stand_in_python(tmp_path, "exec sleep 600"))
    assert len(starts) == 1  # never a second writer beside the first
    pid = int(starts[0].split()[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, signal.SIG_DFL)


def test_a_run_that_is_not_asked_to_starts_nothing(tmp_path: Path) -> None:
    assert run_three(tmp_path, stand_in_python(tmp_path, "exit 3"), class_archive=False) == []
