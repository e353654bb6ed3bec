"""A background thread that samples Kafka's offsets and the checkpoint for the timeline.

Every `interval` seconds it asks Kafka for the topic's earliest and latest offsets and reads the
committed offset from the Spark app's checkpoint folder (with the Spark side's pure reader, no
Spark needed). Kafka being down or the checkpoint missing are normal moments of a scenario; they
are recorded as gaps.

Usage:
    with OffsetSampler(timeline, "127.0.0.1:19092", "Experience", lambda: run_dir / "checkpoints"):
        ...  # the scenario runs
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scenarios.engine.observers.kafka_probe import KafkaProbe, OffsetWindow
from scenarios.engine.observers.periodic import PeriodicSampler
from scenarios.engine.timeline import Timeline
from spark_app.checkpoint.reader import BatchOffsets, CheckpointInfo, read_checkpoint
from spark_app.errors import CheckpointError

__all__ = ["OffsetSampler", "committed_offset", "planned_offset"]


def committed_offset(checkpoint_dir: Path) -> int | None:
    """The end offset (summed over partitions) of the last committed batch, or None."""
    return _summed_end(checkpoint_dir, lambda info: info.last_committed)


def planned_offset(checkpoint_dir: Path) -> int | None:
    """The end offset (summed) of the last batch in the offset log, committed or not: how far
    a running query may have read. A batch planned before a cut may have fetched its records
    already and still complete; its successor starts here."""
    return _summed_end(checkpoint_dir, lambda info: info.pending or info.last_committed)


def _summed_end(
    checkpoint_dir: Path, pick: Callable[[CheckpointInfo], BatchOffsets | None]
) -> int | None:
    try:
        info = read_checkpoint(checkpoint_dir)
    except (CheckpointError, OSError):
        return None  # a half-written or just-deleted folder: the next sample will tell
    batch = pick(info)
    return batch.end_total if batch else None


class OffsetSampler(PeriodicSampler):
    """Samples into a Timeline until stopped; start/stop are idempotent."""

    def __init__(
        self,
        timeline: Timeline,
        bootstrap_servers: str,
        topic: str,
        checkpoint_dir: Callable[[], Path],
        interval: float = 0.5,
    ) -> None:
        super().__init__(interval, "offset-sampler")
        self.timeline = timeline
        self.checkpoint_dir = checkpoint_dir
        self._probe = KafkaProbe(bootstrap_servers, topic, timeout_sec=2.0)
        self.last_window: OffsetWindow | None = None

    def stop(self) -> None:
        super().stop()
        self._probe.stop()

    def sample(self) -> None:
        window = self._window()
        self.last_window = window or self.last_window
        self.timeline.sample(
            earliest=window.earliest if window else None,
            latest=window.latest if window else None,
            committed=committed_offset(self.checkpoint_dir()),
            per_partition=window.per_partition if window else (),
        )

    def _window(self) -> OffsetWindow | None:
        try:
            return self._probe.window()
        except Exception:  # noqa: BLE001 - see below
            # A sampler must never end a scenario: kafka-python raises assorted errors while
            # the broker restarts. Record a gap and start afresh on the next sample.
            self._probe.stop()
            return None
