"""kafka-upgrade without Kafka: on a stack with one broker it is skipped and says why."""

from __future__ import annotations

import io
from pathlib import Path

from scenarios.catalog.kafka_upgrade import SCENARIO
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import OFFLINE
from scenarios.report.narration import Narrator
from scenarios.run.runner import run_scenarios


def test_on_a_one_broker_stack_it_is_skipped_and_says_why(tmp_path: Path) -> None:
    settings = OFFLINE.applied_to(RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path))
    out = io.StringIO()
    [result] = run_scenarios([SCENARIO], settings, Narrator(stream=out, rich=False))
    assert result.verdict == "skipped"
    assert "needs 3 Kafka brokers" in result.skipped and "apache/connector" in result.skipped
    assert not (tmp_path / "kafka-upgrade").exists()
