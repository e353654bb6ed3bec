"""broker-failover without Kafka: the skip on a stack with one broker, and which error line
is the app's."""

from __future__ import annotations

import io
import json
from pathlib import Path

from scenarios.catalog.broker_failover import SCENARIO
from scenarios.run.runner import run_scenarios
from scenarios.engine.stacks import OFFLINE
from scenarios.engine.settings import RunSettings, Timings
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import exit_code


def test_on_a_one_broker_stack_it_is_skipped_and_says_why(tmp_path: Path) -> None:
    settings = OFFLINE.applied_to(RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path))
    out = io.StringIO()
    [result] = run_scenarios([SCENARIO], settings, Narrator(stream=out, rich=False))
    assert result.verdict == "skipped"
    assert "needs 3 Kafka brokers" in result.skipped and "apache/connector" in result.skipped
    assert "SKIPPED" in out.getvalue() and not (tmp_path / "broker-failover").exists()
    assert json.loads((tmp_path / "broker-failover.json").read_text())["verdict"] == "skipped"
    assert exit_code([result]) == 1  # a run that ran nothing did not pass


def test_the_apps_error_is_its_last_line_not_a_warning_before_it() -> None:
    from scenarios.catalog.broker_failover import _last_error_line
    from spark_app.errors import PartitionOffsetChangedError, error_in_text

    output = ("WARN KafkaSource: Error in attempt 1 getting Kafka offsets: KAFKA_UNREACHABLE: "
              "no Kafka broker answers at 127.0.0.1:1\n"
              "spark_app: KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED: Partition Experience-0 "
              "offset was changed from 132 to 108.\n")
    assert isinstance(error_in_text(_last_error_line(output)), PartitionOffsetChangedError)
    assert _last_error_line("no error here") == ""
