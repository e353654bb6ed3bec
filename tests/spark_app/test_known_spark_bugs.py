"""Spark 4.1.1's connector bug on a replayed batch (SPARK-55271) gets a line that names it."""

from __future__ import annotations

from pathlib import Path

from checkpoint_stores import CheckpointPlace
from spark_app.failures import explain_failure
from spark_app.failures.known_bugs import known_spark_bug
from spark_app.lines.known_bug_table import bug_named, error_classes_in
from spark_app.lines.known_spark_bugs import (
    METRICS_NPE,
    PREFETCH_CONDITION,
    PREFETCH_WORDS,
    ReplayBug,
    replay_bug_in,
)
from spark_app.settings import SparkAppSettings
from tests.scenarios.more_helpers import write_batch

# What PySpark 4.1.1 raised in the version matrix's state-stores run (shortened).
_RAISED = (
    "[STREAM_FAILED] Query [id = 2c47, runId = 9db1] terminated with exception: Cannot "
    f'invoke "scala.collection.IterableOps.map(scala.Function1)" {METRICS_NPE} SQLSTATE: '
    "XXKST\n\tat org.apache.spark.sql.kafka010.KafkaMicroBatchStream$.metrics("
    "KafkaMicroBatchStream.scala:520)"
)


def test_the_connectors_metrics_npe_is_named_and_says_the_batch_was_committed(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "checkpoints"
    for batch in range(3):
        write_batch(checkpoint, batch, {0: 10 * (batch + 1)})
    settings = SparkAppSettings(
        source="spark-kafka",
        checkpoint=CheckpointPlace(folder=checkpoint),
        log_dir=tmp_path / "log",
    )
    error = explain_failure(RuntimeError(_RAISED), settings)
    line = str(error)
    assert error.token == "STREAM_FAILED" and "\n" not in line
    assert "SPARK-55271" in line and "KafkaMicroBatchStream.metrics" in line
    assert "the batch was committed (batch 2), so the next start goes on" in line


def test_with_a_pending_batch_it_promises_nothing(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    write_batch(checkpoint, 0, {0: 10})
    write_batch(checkpoint, 1, {0: 20}, committed=False)
    settings = SparkAppSettings(
        source="spark-kafka",
        checkpoint=CheckpointPlace(folder=checkpoint),
        log_dir=tmp_path / "log",
    )
    line = str(explain_failure(RuntimeError(_RAISED), settings))
    assert "SPARK-55271" in line and "next start goes on" not in line


def test_our_source_never_reads_as_the_connectors_bug(tmp_path: Path) -> None:
    settings = SparkAppSettings(source="python", log_dir=tmp_path / "log")
    assert "SPARK-55271" not in str(explain_failure(RuntimeError(_RAISED), settings))


def test_a_scenario_reads_the_bug_from_the_apps_line_and_expects_it_on_4_1_only(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "checkpoints"
    write_batch(checkpoint, 0, {0: 10})
    settings = SparkAppSettings(
        source="spark-kafka",
        checkpoint=CheckpointPlace(folder=checkpoint),
        log_dir=tmp_path / "log",
    )
    for version, expected in (("4.1.1", True), ("4.2.0", False), ("4.10.0", False)):
        line = str(known_spark_bug(_RAISED, settings, version))
        bug = replay_bug_in(f"Streaming Experience …\nerror: {line}\n")
        assert bug == ReplayBug(version, committed=True) and bug.expected is expected
    assert replay_bug_in("error: [KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE] …") is None


def test_a_pending_batch_is_read_as_not_committed(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    write_batch(checkpoint, 0, {0: 10}, committed=False)
    settings = SparkAppSettings(
        source="spark-kafka",
        checkpoint=CheckpointPlace(folder=checkpoint),
        log_dir=tmp_path / "log",
    )
    bug = replay_bug_in(str(known_spark_bug(_RAISED, settings, "4.1.1")))
    assert bug is not None and not bug.committed


# What PySpark 4.0.0 raised in the museum's SPARK-53560 exhibit (26 Nov 2026, shortened).
_PREFETCH = (
    "[STREAM_FAILED] Query [id = 3b13, runId = ae0b] terminated with exception: Kafka "
    "data source in Trigger.AvailableNow should provide the same topic partitions in "
    "pre-fetched offset to end offset for each microbatch. The error could be transient "
    "- restart your query, and report if you still see the same issue.\n"
    "topic-partitions for pre-fetched offset: Set(t-2, t-0, t-1), topic-partitions for "
    "end offset: Set(t-0)."
)


def test_the_available_now_mismatch_is_named_with_the_way_out(tmp_path: Path) -> None:
    assert PREFETCH_WORDS in _PREFETCH
    settings = SparkAppSettings(source="spark-kafka", log_dir=tmp_path / "log")
    error = explain_failure(RuntimeError(_PREFETCH), settings)
    line = str(error)
    assert error.token == "STREAM_FAILED" and "\n" not in line
    assert "SPARK-53560" in line and "--trigger processing-time" in line
    assert "the 4.0 line" in line and "transient" not in line
    # The museum reads the outcome from the line: the connector's condition, by its name.
    bug = bug_named("SPARK-53560")
    assert bug.when_present == PREFETCH_CONDITION
    assert error_classes_in(line, (bug.when_present,))[0] == PREFETCH_CONDITION


def test_our_source_never_reads_as_the_prefetch_bug(tmp_path: Path) -> None:
    settings = SparkAppSettings(source="python", log_dir=tmp_path / "log")
    assert "SPARK-53560" not in str(explain_failure(RuntimeError(_PREFETCH), settings))
