"""`python -m spark_app --offsets-from-group` as real processes: the app commits each batch's start
offsets to the group, and a new query on a fresh checkpoint resumes from them (seed 000).

Marked `spark` and `e2e`: it starts the real app twice, against the embedded broker; run with
`pytest --slow`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from scenarios.checker.verify import ValueRange, verify_file
from spark_app.checkpoint.reader import committed_batches
from spark_app.offsets import TopicPartition
from spark_app.settings import SparkAppSettings
from spark_app.source.kafka_client import GroupOffsets
from tests.spark_app.app_process import AppProcess, wait_until
from tests.spark_app.kafka_helpers import create_topic, send_counter

pytestmark = [pytest.mark.spark, pytest.mark.e2e]  # a Spark app and its producer, as processes

START_SEC = 600  # a cold Spark start on a busy two-core machine has taken minutes
TP0 = TopicPartition("Experience", 0)


def app_args(bootstrap: str, tmp_path: Path, checkpoint: str, *extra: str) -> list[str]:
    settings = SparkAppSettings(
        bootstrap_servers=bootstrap,
        checkpoint=CheckpointPlace(folder=tmp_path / checkpoint),
        log_dir=tmp_path / "log",
        trigger_sec=0.5,
        offsets_from_group="counter",
    )
    return [*settings.to_argv(), *extra]


def highest(tmp_path: Path) -> int:
    out = tmp_path / "log" / "streaming-output.log"
    return (verify_file(out).highest or 0) if out.exists() else 0


def test_a_fresh_checkpoint_resumes_from_the_committed_start_offsets(
    embedded_broker, tmp_path: Path
) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 31))
    with AppProcess(tmp_path, app_args(bootstrap, tmp_path, "checkpoint-a")) as app:
        wait_until(lambda: highest(tmp_path) >= 30, START_SEC, "values 1..30", app)
        send_counter(bootstrap, range(31, 41))
        wait_until(lambda: highest(tmp_path) >= 40, 120, "values 31..40", app)
        assert app.terminate() == 0
    batches = committed_batches(tmp_path / "checkpoint-a")
    last_start = batches[-2].end[TP0] if len(batches) > 1 else 0  # type: ignore[index]
    with GroupOffsets(bootstrap, "counter") as group:
        committed = group.committed([TP0])[TP0]
    # The group holds where the last batch started, not where it ended: it will be redone.
    assert committed == last_start < 40

    send_counter(bootstrap, range(41, 46))
    # latest would skip 41..45: the group's offsets must win on a fresh checkpoint.
    args = app_args(bootstrap, tmp_path, "checkpoint-b", "--starting-offsets", "latest")
    with AppProcess(tmp_path, args) as app:
        wait_until(lambda: highest(tmp_path) >= 45, START_SEC, "values 41..45", app)
        assert app.terminate() == 0
        said = app.output()
    assert (
        f"starting from the offsets committed for consumer group counter: Experience-0@{committed}"
        in said
    )
    report = verify_file(tmp_path / "log" / "streaming-output.log")
    assert report.missing == ()
    replayed = ValueRange(committed + 1, 40)
    assert report.duplicated == dict.fromkeys(range(replayed.first, replayed.last + 1), 2)
    # A fresh checkpoint is fresh state: the count starts again at the first replayed value.
    assert report.count_resets == (committed + 1,)
