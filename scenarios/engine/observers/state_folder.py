"""The state store's folder as the state scenarios look at it: which partition folder, and the
snapshot cadence a run gives the app.

The count has one group and one shuffle partition, so its whole state is operator 0,
partition 0: `<checkpoint>/state/0/0/`.

Usage:
    files = list_state_files(partition_of(app.folders.checkpoints))
    app.start(state_store="rocksdb", **cadence(stage.settings.fast))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["partition_of", "cadence", "snapshot_every"]

# Spark's default minDeltasForSnapshot; --fast lowers it (and maintenance's interval) so a
# few seconds show several snapshots.
SPARK_SNAPSHOT_EVERY = 10
FAST_CADENCE = {"snapshot_every": 3, "maintenance_sec": 2.0}


def partition_of(checkpoints: Path) -> Path:
    return checkpoints / "state" / "0" / "0"


def cadence(fast: bool) -> dict[str, Any]:
    """The app's snapshot options: Spark's defaults (every 10 versions, maintenance every
    60 s), or every 3 versions with maintenance every 2 s under --fast."""
    return dict(FAST_CADENCE) if fast else {}


def snapshot_every(fast: bool) -> int:
    return int(cadence(fast).get("snapshot_every", SPARK_SNAPSHOT_EVERY))
