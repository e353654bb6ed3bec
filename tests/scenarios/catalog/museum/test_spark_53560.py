"""The AvailableNow exhibit's pure parts, without Spark: the backlog that stops the backfill in
the middle, the messages for the new partitions, the outcome read from the app's line, a
drained topic, and the table's row judged per line."""

from __future__ import annotations

import pytest

from scenarios.catalog.museum.spark_53560 import (
    ADDED,
    BACKLOG,
    BUG,
    CAP,
    CRASH_AT,
    GROWN,
    MISMATCH_WORDS,
    added_messages,
    backlog_messages,
    drained,
    outcome_in,
)
from spark_app.lines.known_bug_table import FIXED, PRESENT, RAN_ON, judge
from spark_app.offsets import TopicPartition

# The app's line as PySpark 4.0.0 printed it in the exhibit (26 Nov 2026, shortened): Spark's
# STREAM_FAILED around the connector's bare SparkException, cut by the app.
LINE_400 = (
    "spark_app: STREAM_FAILED: [STREAM_FAILED] Query [id = 3b13711c, runId = ae0b9dbb] "
    "terminated with exception: Kafka data source in Trigger.AvailableNow should provide "
    "the same topic partitions in pre-fetched offset to end offset for each microbatch. "
    "The error could be tr ... 1, offset#12L, key#15, value#18, 0 AS stream#19]"
)


def test_the_backlog_stops_the_backfill_in_a_middle_batch() -> None:
    sent = backlog_messages()
    assert [v for _, v in sent] == list(range(1, BACKLOG + 1))
    assert [(k, v) for k, v in sent if k < 0] == [(-CRASH_AT, CRASH_AT)]
    batches = BACKLOG // CAP
    crashed_in = (CRASH_AT - 1) // CAP
    # Batches committed before it, batches left after it: the stop falls mid-run.
    assert 0 < crashed_in < batches - 1


def test_the_added_messages_go_to_the_new_partitions_only() -> None:
    added = added_messages()
    assert len(added) == ADDED
    assert {p for p, _, _ in added} == set(range(1, GROWN))
    assert [v for _, _, v in added] == list(range(BACKLOG + 1, BACKLOG + ADDED + 1))
    assert all(k == v for _, k, v in added)


def test_the_connectors_mismatch_is_named_by_its_words() -> None:
    assert MISMATCH_WORDS in LINE_400
    assert outcome_in(LINE_400) == BUG.when_present
    # A bracketed class the app's line carries is the outcome (STREAM_FAILED is a wrapper).
    assert (
        outcome_in("spark_app: [STREAM_FAILED] … [KAFKA_DATA_LOSS.PARTITIONS_DELETED] …")
        == "KAFKA_DATA_LOSS.PARTITIONS_DELETED"
    )
    assert outcome_in("spark_app: Stopped cleanly") is None


def test_drained_is_every_partition_at_its_end() -> None:
    t = "Experience-spark-53560"
    ends = {TopicPartition(t, 0): 60, TopicPartition(t, 1): 3, TopicPartition(t, 2): 3}
    assert drained(dict(ends), ends)
    assert not drained({TopicPartition(t, 0): 60}, ends)  # the new partitions never read
    assert not drained({**ends, TopicPartition(t, 2): 2}, ends)
    assert not drained(dict(ends), {})


@pytest.mark.parametrize(
    ("version", "observed", "held", "status"),
    [
        ("4.0.0", BUG.when_present, True, PRESENT),
        ("4.1.1", RAN_ON, True, FIXED),
        ("4.2.0", RAN_ON, True, FIXED),
        ("4.2.0", BUG.when_present, False, PRESENT),  # the fix gone: a regression
        ("4.0.0", RAN_ON, False, FIXED),  # a 4.0 with the fix: record it
    ],
)
def test_the_exhibit_is_judged_per_line(
    version: str, observed: str, held: bool, status: str
) -> None:
    verdict = judge(BUG, version, observed)
    assert (verdict.held, verdict.status) == (held, status)


def test_it_is_a_connector_bug_skipped_on_our_source() -> None:
    assert BUG.needs_connector
