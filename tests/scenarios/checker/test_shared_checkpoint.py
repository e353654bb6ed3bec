"""The pure parts of checkpoint-moved-and-shared: two output logs compared, the batch that
holds the values both wrote, and which log Spark found written by another query (no Spark)."""

from __future__ import annotations

from pathlib import Path

from scenarios.checker.shared_checkpoint import (
    batch_holding,
    collided_on,
    common_prefix,
    counted_values,
    overlap,
)
from tests.scenarios.more_helpers import write_output

# Spark 4.2.0's trace in the stopped app's spark.log (checkpoint-moved-and-shared), shortened.
PLANNED = """org.apache.spark.SparkException: [CONCURRENT_STREAM_LOG_UPDATE] Concurrent update to \
the log. Multiple streaming jobs detected for 28. SQLSTATE: 40000
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.concurrentStreamLogUpdate(QueryExecutionErrors.scala:2265)
\tat org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution.markMicroBatchStart(MicroBatchExecution.scala:1283)
\tat org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution.constructNextBatch(MicroBatchExecution.scala:911)
"""


def test_an_output_log_reads_as_values_with_their_counts(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    write_output(log, [5, 6, 7])
    assert counted_values(log) == [(5, 1), (6, 2), (7, 3)]
    assert counted_values(tmp_path / "none.log") == []


def test_two_logs_overlap_on_what_both_wrote_and_name_a_count_they_disagree_on() -> None:
    both = overlap([(1, 1), (2, 2), (3, 3)], [(3, 3), (4, 4)])
    assert (both.only_first, both.only_second, both.both, both.counts_differ) == (
        (1, 2),
        (4,),
        (3,),
        (),
    )
    assert both.union == (1, 2, 3, 4)
    assert overlap([(3, 3)], [(3, 1)]).counts_differ == (3,)


def test_two_running_apps_are_compared_on_what_both_had_the_time_to_write() -> None:
    """A fresh-clone run beside CI (26 Nov 2026): the old folder's app had written 204..205 in
    a batch the job, on a loaded machine, had not planned yet; they read as written by it alone."""
    job = [(v, v) for v in range(31, 204)]
    old = [(v, v) for v in range(31, 206)]
    assert overlap(job, old).only_second == (204, 205)
    cut = overlap(*common_prefix(job, old))
    assert cut.only_second == () and cut.both == tuple(range(31, 204))
    assert overlap(*common_prefix(old, job)).only_first == ()  # whichever is ahead
    assert common_prefix([], old) == ([], [])


def test_the_values_both_wrote_are_named_by_their_batch() -> None:
    ends = {24: 129, 25: 131, 26: 133}
    assert batch_holding(ends, [132, 133]) == 26
    assert batch_holding(ends, [132]) == 26
    assert batch_holding(ends, [131, 132]) is None  # two batches
    assert batch_holding(ends, []) is None
    assert batch_holding({0: 3}, [1, 2, 3]) == 0


def test_the_log_spark_collided_on_is_read_from_its_trace() -> None:
    assert collided_on(PLANNED) == "offsets"
    assert collided_on(PLANNED.replace("markMicroBatchStart", "markMicroBatchEnd")) == "commits"
    assert collided_on("no collision here") is None
