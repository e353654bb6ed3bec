"""`--offsets-from-group` on Spark's connector: the app commits each batch's start offsets itself.

Spark's Kafka connector never commits offsets to Kafka; its position lives in the checkpoint
only. Production jobs that keep offsets outside Spark (seed 000) commit them from the job: here
in foreachBatch, when batch N runs and before its output is written, its start offsets (the
checkpoint's `offsets/N-1`, or `sources/0/0` for the first batch) go to the consumer group.

Our source commits the same offsets earlier, when it plans the batch (kafka_source.py). A kill
between planning and running therefore leaves the group one batch further back here: more is
read twice, nothing is lost, and the group's offset still says exactly what a new checkpoint
replays. `python -m spark_app --offsets-from-group G` then starts a new checkpoint there, on
either source (group_offsets.py).

Usage:
    commit = BatchStartCommitter(settings)   # in the foreachBatch handler
    commit(batch_id)                         # before writing batch_id's output
    commit.close()
"""

from __future__ import annotations

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.settings import SparkAppSettings
from spark_app.source.kafka_client import GroupOffsets
from spark_app.source.offset_ranges import start_offsets_to_commit

__all__ = ["BatchStartCommitter"]


class BatchStartCommitter:
    """Commits the start offsets of the batch being run to `settings.offsets_from_group`."""

    def __init__(self, settings: SparkAppSettings) -> None:
        assert settings.offsets_from_group is not None
        self.checkpoint_dir = settings.checkpoint.folder
        self.group = GroupOffsets(settings.bootstrap_servers, settings.offsets_from_group)

    def __call__(self, batch_id: int) -> None:
        info = read_checkpoint(self.checkpoint_dir)
        # The batch running is the one planned and not committed: offsets/N without commits/N.
        if info.pending is None or info.pending.batch_id != batch_id or info.pending.end is None:
            return
        self.group.start()
        self.group.commit(start_offsets_to_commit(info.pending_start or {}, info.pending.end))

    def close(self) -> None:
        self.group.stop()
