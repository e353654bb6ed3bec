"""The bounds a checkpoint folder keeps to, as a user computes them, and the checks of a soak's
samples against them: pure functions of what `scenarios/engine/observers/checkpoint_size.py`
measured, used by checkpoint-growth and its tests.

- `offsets/` and `commits/`: the driver trims them after every batch to the last N batches
  (N = spark.sql.streaming.minBatchesToRetain), plus the one being planned;
- HDFS state: N versions, the deltas back to the snapshot below them, and what piles up while
  the snapshot and the cleanup each wait for a maintenance;
- RocksDB state: N versions, plus round(N x ratioExtraSpaceAllowedInCheckpoint) stale ones
  before maintenance deletes them all at once.

Usage:
    bound = hdfs_state_bound(100, 10, batches_per_maintenance=60.0)
    problems = state_problems(samples, bound)   # [] when every sample is within it
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scenarios.checker.folder_usage import FolderSample

__all__ = [
    "MARGIN",
    "log_bound",
    "hdfs_state_bound",
    "rocksdb_state_bound",
    "batch_rate",
    "steady",
    "log_problems",
    "state_problems",
    "plateau_problem",
    "unchanged_problem",
    "caught_up_after",
    "ratio_problem",
]

# A batch or two between a sample and the cleanup that follows it: planned and not yet trimmed.
MARGIN = 2


def log_bound(retain: int) -> int:
    """offsets/ and commits/ hold the last N batches, and the one being planned."""
    return retain + MARGIN


def hdfs_state_bound(retain: int, snapshot_every: int, batches_per_maintenance: float) -> int:
    """HDFS keeps N versions and the deltas back to the snapshot below them. Maintenance writes
    a snapshot once more than `snapshot_every` deltas piled up, so snapshots are up to
    snapshot_every + 1 versions and one maintenance interval's batches apart; cleanup runs at
    maintenance too, so another interval's batches pile up before it."""
    return retain + snapshot_every + 1 + 2 * math.ceil(batches_per_maintenance) + MARGIN


def rocksdb_state_bound(retain: int, ratio: float, batches_per_maintenance: float) -> int:
    """RocksDB deletes once more than round(N x ratio) stale versions pile up (Spark's
    minVersionsToDelete), and only when maintenance runs."""
    return retain + round(retain * ratio) + 1 + math.ceil(batches_per_maintenance) + MARGIN


def batch_rate(samples: Sequence[FolderSample]) -> float:
    """Batches per second over the samples (newest batch id against the clock)."""
    known = [s for s in samples if s.usage.newest_batch is not None]
    if len(known) < 2 or known[-1].at <= known[0].at:
        return 0.0
    return (known[-1].usage.newest_batch - known[0].usage.newest_batch) / (  # type: ignore[operator]
        known[-1].at - known[0].at
    )


def steady(samples: Sequence[FolderSample], from_batch: float) -> list[FolderSample]:
    """The samples from batch `from_batch` on: once the first cleanups have had their chance."""
    return [s for s in samples if (s.usage.newest_batch or 0) >= from_batch]


def log_problems(samples: Sequence[FolderSample], retain: int) -> list[str]:
    """What in the steady samples breaks "offsets/ and commits/ keep about N entries"."""
    bound = log_bound(retain)
    problems = []
    for name in ("offsets", "commits"):
        counts = [getattr(s.usage, f"{name}_entries") for s in samples]
        if not counts:
            problems.append(f"no {name} samples")
        elif max(counts) > bound or min(counts) < retain - 1:
            problems.append(f"{name}/ held {min(counts)}..{max(counts)} entries")
    return problems


def state_problems(samples: Sequence[FolderSample], bound: int) -> list[str]:
    counts = [s.usage.state_versions for s in samples]
    if not counts:
        return ["no state samples"]
    return [] if max(counts) <= bound else [f"up to {max(counts)} state versions"]


def plateau_problem(samples: Sequence[FolderSample], tolerance: float = 0.15) -> str | None:
    """Whether the folder stopped growing: the last third's largest size is within `tolerance`
    of the middle third's (a folder that grows with every batch grows by half between them)."""
    third = len(samples) // 3
    if third < 2:
        return f"only {len(samples)} samples"
    middle = max(s.usage.total_bytes for s in samples[third : 2 * third])
    last = max(s.usage.total_bytes for s in samples[2 * third :])
    if last > middle * (1 + tolerance):
        return f"grew from {middle} to {last} bytes"
    return None


def unchanged_problem(before: dict[str, int], after: dict[str, int]) -> str | None:
    """What changed between two listings (path -> size) of a stopped checkpoint."""
    gone = sorted(before.keys() - after.keys())
    new = sorted(after.keys() - before.keys())
    resized = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    if not (gone or new or resized):
        return None
    return "; ".join(
        f"{what} {names[:3]}{'…' if len(names) > 3 else ''}"
        for what, names in (("deleted", gone), ("new", new), ("resized", resized))
        if names
    )


def caught_up_after(samples: Sequence[FolderSample], start_batch: int, oldest: int) -> int | None:
    """How many batches after a restart at `start_batch` state version `oldest` (the oldest a
    stop left) was first gone (None: never, in these samples)."""
    return next(
        (
            (s.usage.newest_batch or 0) - start_batch
            for s in samples
            if (s.usage.newest_batch or 0) > start_batch
            and (s.usage.oldest_state_version or 0) > oldest
        ),
        None,
    )


def ratio_problem(
    with_ratio: Sequence[int], without: Sequence[int], retain: int, ratio: float
) -> str | None:
    """Whether the ratio showed: with it, the state versions reached N + round(N x ratio) - 1
    or more (one batch of sampling slack); without it, they peaked lower."""
    if not with_ratio or not without:
        return f"{len(with_ratio)} and {len(without)} samples"
    reach = retain + round(retain * ratio) - 1
    if max(with_ratio) < reach:
        return f"peak {max(with_ratio)} with ratio {ratio:g}, below {reach}"
    if max(without) >= max(with_ratio):
        return f"peak {max(without)} with ratio 0, not below {max(with_ratio)} with {ratio:g}"
    return None
