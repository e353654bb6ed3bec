"""The Stage's Kafka side against the real broker and producer processes (no Spark needed).

Retention ages out, a newline makes a negative key, the sampler records offsets for the
timeline, and closing the stage leaves no process behind.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stage import Stage
from scenarios.report.narration import Narrator
from scenarios.report.timeline import render as render_timeline


@pytest.mark.e2e
def test_kafka_side_of_a_stage(tmp_path: Path) -> None:
    stage = Stage("stage-test", RunSettings(timings=Timings.fast(), fast=True), tmp_path / "run")
    with stage:
        stage.kafka.start(retention_sec=2.0)
        assert stage.kafka.bootstrap_servers != "127.0.0.1:9092"
        first = stage.kafka.window()
        assert first.latest >= 1
        aged = stage.kafka.wait_until_aged_out(first.latest)
        assert aged.earliest > first.latest
        # Raises StepFailed unless the producer echoes key -value for the value it returns.
        assert stage.kafka.send_negative_key() > aged.latest
        final = stage.kafka.stop_producer()
        assert final.latest >= aged.latest
        pids = [p.pid for p in stage.group.processes]
    assert stage.timeline.retention_deletions(), "the sampler saw the earliest offset move"
    assert all(not p.running for p in stage.group.processes)
    for pid in pids:
        assert subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0
    picture = render_timeline(stage.timeline, tmp_path / "stage.svg", "stage test")
    assert "Kafka earliest offset" in picture.read_text()


@pytest.mark.e2e
def test_kafka_keeps_everything_unless_a_scenario_sets_a_retention(tmp_path: Path) -> None:
    said = io.StringIO()
    timings = Timings.fast()
    stage = Stage(
        "stage-test",
        RunSettings(timings=timings, fast=True, kafka="embedded", source="python"),
        tmp_path / "run",
        listeners=[Narrator(stream=said).hear],
    )
    with stage:
        stage.kafka.start()
        assert stage.kafka.window().latest >= 1
    assert f"retention {timings.endless_retention_sec:g} s" in said.getvalue()
