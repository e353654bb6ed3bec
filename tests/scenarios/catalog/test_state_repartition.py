"""state-repartition's pure parts, without Spark: which lines have the offline repartition, the
app's line for each of Spark's refusals, what a failed repartition left planned and is removed,
and where the scenario reads the state's partitions from (a batch's conf and its state folders).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.catalog.state_repartition import state_partitions
from spark_app.errors import (
    RepartitionLastBatchFailedError,
    RepartitionUnsupportedOperatorError,
    RepartitionUnsupportedProviderError,
    StateRepartitionError,
    error_in_text,
)
from spark_app.query.state_repartition import _remove_planned, refusal_in, unavailable_on
from tests.scenarios.more_helpers import write_batch


@pytest.mark.parametrize(
    ("version", "unavailable"),
    [("4.0.0", True), ("4.1.1", True), ("4.2.0", False), ("4.2.1", False), ("4.3.0", False)],
)
def test_only_4_2_and_later_have_the_offline_repartition(version: str, unavailable: bool) -> None:
    assert unavailable_on(version) is unavailable


def _spark_text(cls: str, words: str) -> str:
    # As PySpark's exception text has it: the class in brackets, the message, the SQLSTATE.
    return (
        f"pyspark.errors.exceptions.captured.AnalysisException: [{cls}] {words} SQLSTATE: 42K03\n"
    )


@pytest.mark.parametrize(
    ("suffix", "error"),
    [
        ("LAST_BATCH_FAILED", RepartitionLastBatchFailedError),
        ("UNSUPPORTED_PROVIDER", RepartitionUnsupportedProviderError),
        ("UNSUPPORTED_STATEFUL_OPERATOR", RepartitionUnsupportedOperatorError),
    ],
)
def test_each_refusal_becomes_the_apps_line_with_spark_words_and_the_way_out(
    suffix: str, error: type[Exception]
) -> None:
    text = _spark_text(f"STATE_REPARTITION_INVALID_CHECKPOINT.{suffix}", "The checkpoint at /c.")
    refusal = refusal_in(text)
    assert type(refusal) is error
    said = str(refusal)
    assert said.startswith(f"{error.token}: The checkpoint at /c.")  # type: ignore[attr-defined]
    assert "SQLSTATE" not in said
    assert "[playground: " in said
    # The line the app prints reads back as the same error (the scenario's check reads it so).
    assert type(error_in_text(f"spark_app: {said}")) is error


def test_an_unknown_repartition_class_keeps_spark_class_in_its_line() -> None:
    refusal = refusal_in(_spark_text("STATE_REPARTITION_INVALID_PARAMETER", "n must be > 0."))
    assert type(refusal) is StateRepartitionError
    assert str(refusal) == (
        "STATE_REPARTITION_REFUSED: [STATE_REPARTITION_INVALID_PARAMETER] n must be > 0."
    )


def test_a_text_without_a_repartition_class_is_not_a_refusal() -> None:
    assert refusal_in("java.lang.OutOfMemoryError: Java heap space") is None


def test_the_removed_planned_batch_is_named_in_the_line() -> None:
    text = _spark_text("STATE_REPARTITION_INVALID_CHECKPOINT.UNSUPPORTED_PROVIDER", "No.")
    assert "offsets/3" in str(refusal_in(text, ["offsets/3"]))


def test_a_failed_repartition_leaves_only_what_was_there_before(tmp_path: Path) -> None:
    for batch in (0, 1):
        write_batch(tmp_path, batch, {0: 5 * (batch + 1)})
    write_batch(tmp_path, 2, {0: 12}, committed=False)  # planned before: a kill's, kept
    write_batch(tmp_path, 3, {0: 12}, committed=False)  # the repartition's, never committed
    (tmp_path / "offsets" / ".3.crc").write_bytes(b"crc")
    removed = _remove_planned(tmp_path, planned_before={0, 1, 2})
    assert removed == ["offsets/3"]
    assert sorted(p.name for p in (tmp_path / "offsets").iterdir()) == ["0", "1", "2"]


def test_the_state_partitions_are_the_batchs_conf_and_the_folders_with_its_version(
    tmp_path: Path,
) -> None:
    meta = {
        "batchWatermarkMs": 0,
        "batchTimestampMs": 1,
        "conf": {"spark.sql.shuffle.partitions": "4"},
    }
    (tmp_path / "offsets").mkdir()
    (tmp_path / "offsets" / "5").write_text(
        f"v1\n{json.dumps(meta)}\n{json.dumps({'Experience': {'0': 9}})}"
    )
    for partition, version in ((0, 6), (1, 6), (2, 5), (3, 6)):
        folder = tmp_path / "state" / "0" / str(partition)
        folder.mkdir(parents=True)
        (folder / f"{version}.changelog").write_bytes(b"")
    (tmp_path / "state" / "0" / "_metadata").mkdir()
    assert state_partitions(tmp_path, 5) == ("4", [0, 1, 3])
