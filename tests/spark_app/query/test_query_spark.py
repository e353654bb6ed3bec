"""A user's query with a real Spark: refused as Spark would refuse it, before any Kafka, and the
oracle's evaluation of every gallery query over records whose result a reader can count.

One Spark session for the file (the checks and evaluations are seconds each once it runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_app.sent_records import SentRecord
from oracle.evaluate import evaluate
from spark_app.errors import QueryModuleError
from spark_app.query.query_check import check_query
from spark_app.query.user_query import load_query

GALLERY = Path(__file__).resolve().parents[3] / "queries"
pytestmark = pytest.mark.spark

START_MS = 1_795_946_400_000  # 2026-11-29 10:00:00 UTC: a round minute, windows start on it


@pytest.fixture(scope="module")
def spark() -> Iterator[object]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(text)
    return path


CASES = [
    ("records.select('value').orderBy('value')", "append", "value", "Sorting is not supported"),
    ("records.sparkSession.range(3)", "append", "id", "returned a batch DataFrame"),
    ("records.groupBy('partition').count()", "update", "bucket", "KEY names bucket, which"),
    ("records.select('value')", "complete", "value", "STREAMING_OUTPUT_MODE"),
]


@pytest.mark.parametrize("build, mode, key, says", CASES)
def test_spark_refuses_a_query_before_any_kafka_in_one_line(
    spark: object, tmp_path: Path, build: str, mode: str, key: str, says: str
) -> None:
    text = f"OUTPUT_MODE = '{mode}'\nKEY = ['{key}']\ndef build(records):\n    return {build}\n"
    with pytest.raises(QueryModuleError) as raised:
        check_query(spark, load_query(write(tmp_path, text)), tmp_path / "scratch")
    line = str(raised.value)
    assert says in line and str(tmp_path / "mine.py") in line and "\n" not in line


def test_every_gallery_query_runs_as_a_stream_and_says_what_its_result_depends_on(
    spark: object, tmp_path: Path
) -> None:
    depends = {
        path.stem: check_query(spark, load_query(path), tmp_path / path.stem)
        for path in sorted(GALLERY.glob("*.py"))
    }
    # Only the watermarked aggregation in append mode writes what batch boundaries decide: a
    # window is written when the watermark passes it. The dedup and the inner join write at
    # once; their watermarks only bound their state.
    assert {name for name, says in depends.items() if says} == {"window_count"}
    assert depends["window_count"] == "a watermark in append mode"


def records(count: int, every_ms: int = 1000) -> list[SentRecord]:
    """The producer's counter: value n at offset n - 1, one a second from START_MS."""
    return [
        SentRecord("Experience", 0, n - 1, START_MS + (n - 1) * every_ms, str(n), str(n))
        for n in range(1, count + 1)
    ]


def rows_of(spark: object, name: str, sent: list[SentRecord], tmp_path: Path) -> list[dict]:
    return evaluate(spark, load_query(GALLERY / f"{name}.py"), sent, tmp_path / name)


def test_the_oracle_counts_per_key_as_a_batch(spark: object, tmp_path: Path) -> None:
    got = rows_of(spark, "count_per_key", records(23), tmp_path)
    assert sorted((r["bucket"], r["records"]) for r in got) == [
        (0, 4),
        (1, 5),
        (2, 5),
        (3, 5),
        (4, 4),
    ]


def test_the_oracle_closes_every_window_a_batch_sees(spark: object, tmp_path: Path) -> None:
    got = rows_of(spark, "window_count", records(25), tmp_path)
    assert sorted((r["window_start"], r["records"]) for r in got) == [
        ("2026-11-29T10:00:00", 10),
        ("2026-11-29T10:00:10", 10),
        ("2026-11-29T10:00:20", 5),
    ]


def test_the_oracle_keeps_one_row_per_group(spark: object, tmp_path: Path) -> None:
    got = rows_of(spark, "dedup", records(10), tmp_path)
    assert sorted(r["group"] for r in got) == [0, 1, 2, 3]


def test_the_oracle_runs_streaming_only_operators_as_one_stream(
    spark: object, tmp_path: Path
) -> None:
    """dropDuplicatesWithinWatermark and applyInPandasWithState: refused in a batch by Spark,
    so evaluated as a stream of every record; the result per mode as the sink's is read."""
    dedup = rows_of(spark, "dedup_within_watermark", records(10), tmp_path)
    assert sorted(r["group"] for r in dedup) == [0, 1, 2, 3]
    sessions = rows_of(spark, "sessions", records(12), tmp_path)
    assert sorted((r["bucket"], r["records"], r["highest"]) for r in sessions) == [
        (0, 2, 10),
        (1, 3, 11),
        (2, 3, 12),
        (3, 2, 8),
        (4, 2, 9),
    ]


def test_the_oracle_joins_a_stream_with_a_table_and_with_itself(
    spark: object, tmp_path: Path
) -> None:
    joined = rows_of(spark, "stream_static_join", records(6), tmp_path)
    assert sorted((r["value"], r["name"]) for r in joined) == [
        (1, "one"),
        (2, "two"),
        (3, "three"),
        (4, "four"),
        (5, "zero"),
        (6, "one"),
    ]
    pairs = rows_of(spark, "stream_stream_join", records(7), tmp_path)
    assert sorted((r["odd"], r["even"]) for r in pairs) == [(1, 2), (3, 4), (5, 6)]
