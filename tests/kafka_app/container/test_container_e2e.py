"""Kafka in a container of our image, used as a user would: a scenario with --bootstrap-servers.

Marked `docker`, in CI's "containers" part: checkpoint-reset, the scenario that reads a topic
three times over (a new query at latest, another at earliest), so the container's Kafka serves
the earliest, latest and retained offsets the lesson predicts from. endless-retention took 4 min
at load 12 to 16 here, more than CI's budget for it; checkpoint-reset needs no crash and no
retention to pass. Skips, saying why, when no Docker engine answers.
The container's retention check is set to the scenario's `--fast` second, as a user running
`--fast` against their own Kafka would set it (docs/scenarios.md: with --bootstrap-servers the
retention check is that Kafka's own setting).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from tests.scenarios.more_helpers import passed_report
from tests.stopped_gently import run_stoppable

NAME = "checkpoint-reset"


@pytest.mark.docker
def test_a_scenario_runs_against_kafka_in_a_container(kafka_image: str, tmp_path: Path) -> None:
    from kafka_app.container.container import KafkaContainer

    report = tmp_path / "report"
    fast = {"KAFKA_LOG_RETENTION_CHECK_INTERVAL_MS": "1000", "KAFKA_LOG_INITIAL_TASK_DELAY_MS": "0"}
    with KafkaContainer(kafka_image, env=fast) as kafka:
        done = run_stoppable(
            [
                sys.executable,
                "-m",
                "scenarios",
                "run",
                NAME,
                "--fast",
                "--bootstrap-servers",
                kafka.bootstrap_servers,
                "--report",
                str(report),
            ],
            cwd=PROJECT_ROOT,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
        result = passed_report(NAME, report)
        # The scenario made its own topic in that Kafka, and read it there.
        topics = (
            kafka.get_wrapped_container().exec_run(["ls", "/var/lib/kafka/data"]).output.decode()
        )
    assert any(line.startswith(f"Experience-{NAME}-") for line in topics.split()), topics
    assert result["verdict"] == "passed"
