"""The pure parts of state-reader: the change feed held against the batch lines, the batch it
reads, inspect's JSON found in a noisy output (no Spark)."""

from __future__ import annotations

from scenarios.catalog.state_reader import (
    counts_by_batch,
    feed_mismatches,
    output_mismatches,
    pick_batch,
)
from spark_app.checkpoint.reader import BatchOffsets
from spark_app.offsets import TopicPartition


def change(batch: int, count: int, kind: str = "update") -> dict:
    return {"batch_id": batch, "change_type": kind, "count": count}


def test_a_feed_that_matches_the_batch_lines_has_no_mismatch() -> None:
    assert feed_mismatches([change(3, 4), change(4, 5)], {3: 4, 4: 5, 5: 6}) == []


def test_a_feed_count_the_offsets_do_not_give_is_named() -> None:
    assert feed_mismatches([change(3, 4), change(4, 7)], {3: 4, 4: 5}) == [
        "batch 4: feed 7, offsets 5"
    ]


def test_a_delete_or_a_batch_twice_is_a_mismatch() -> None:
    assert feed_mismatches([change(3, 4, "delete")], {3: 4}) == ["batch 3: delete"]
    assert feed_mismatches([change(3, 4), change(3, 4)], {3: 4})[-1].startswith(
        "batches out of order"
    )


def test_the_batch_read_lies_inside_the_change_feeds_window() -> None:
    assert pick_batch(8) == 4
    assert pick_batch(30) == 21  # the feed shows the last 10: 21..30
    assert pick_batch(0) == 0


def test_the_count_after_a_batch_is_its_end_offsets_summed() -> None:
    batches = [
        BatchOffsets(0, ({TopicPartition("E", 0): 3, TopicPartition("E", 1): 2},)),
        BatchOffsets(1, ({TopicPartition("E", 0): 4, TopicPartition("E", 1): 2},)),
    ]
    assert counts_by_batch(batches) == {0: 5, 1: 6}


def test_the_output_must_hold_each_count_on_its_value() -> None:
    assert output_mismatches({0: 2, 1: 3}, [1, 2, 3]) == []
    assert output_mismatches({0: 2, 1: 4}, [1, 2, 3]) == [
        "batch 1: count 4, output's 4th message missing"
    ]
    assert output_mismatches({0: 2}, [1, 3, 2]) == ["batch 0: count 2, output's 2th message 3"]
