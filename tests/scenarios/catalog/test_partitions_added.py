"""partitions-added's reading of the checkpoint with a user's query, without Spark: when the
query has committed a new partition, and when the recreated topic's reading went past a batch."""

from __future__ import annotations

from pathlib import Path

from scenarios.catalog.partitions_added import _committed_at_least, _committed_beyond
from spark_app.offsets import TopicPartition
from tests.scenarios.more_helpers import idle_stage, write_batch

P0, P1 = (TopicPartition("Experience", p) for p in range(2))


def test_a_new_partition_counts_once_committed_to_the_offset(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 20})
    assert _committed_at_least(stage, P1, 3) is None  # not named yet
    write_batch(stage.folders.checkpoints, 1, {0: 22, 1: 2})
    assert _committed_at_least(stage, P1, 3) is None
    write_batch(stage.folders.checkpoints, 2, {0: 24, 1: 5}, committed=False)
    assert _committed_at_least(stage, P1, 3) is None  # planned, not committed
    write_batch(stage.folders.checkpoints, 2, {0: 24, 1: 5})
    assert _committed_at_least(stage, P1, 3) == 5


def test_the_recreated_topic_counts_only_in_batches_after_the_failed_one(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    # Before the recreation the old topic's partition 0 was read to 40: past any new offset.
    write_batch(stage.folders.checkpoints, 6, {0: 40, 1: 20})
    write_batch(stage.folders.checkpoints, 7, {0: 10}, committed=False)  # the failed run's
    assert _committed_beyond(stage, 7, P0, 11) is None
    write_batch(stage.folders.checkpoints, 7, {0: 10})  # replayed: its negative range dropped
    assert _committed_beyond(stage, 7, P0, 11) is None
    write_batch(stage.folders.checkpoints, 8, {0: 14})
    beyond = _committed_beyond(stage, 7, P0, 11)
    assert beyond is not None and beyond.batch_id == 8
