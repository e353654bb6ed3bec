"""The state store's folder as the state scenarios look at it: which partition folder, and the
snapshot cadence a run gives the app.

The count has one group and one shuffle partition, so its whole state is operator 0,
partition 0: `<checkpoint>/state/0/0/`.

Usage:
    files = list_state_files(partition_of(app.folders.checkpoints))
    files = listed_state_files(stage.store.files(app.folders.checkpoints))  # any store
    app.start(state_store="rocksdb", **cadence(stage.settings.fast))
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from spark_app.checkpoint.state_files import StateFile, classify

__all__ = ["partition_of", "listed_state_files", "cadence", "snapshot_every"]

# Spark's default minDeltasForSnapshot; --fast lowers it (and maintenance's interval) so a
# few seconds show several snapshots.
SPARK_SNAPSHOT_EVERY = 10
FAST_CADENCE = {"snapshot_every": 3, "maintenance_sec": 2.0}


def partition_of(checkpoints: Path) -> Path:
    return checkpoints / "state" / "0" / "0"


def listed_state_files(names: Iterable[str]) -> list[StateFile]:
    """The partition's state files among a checkpoint's file names (relative to it, e.g. a
    store's listing), as list_state_files finds them in a folder: Hadoop's hidden `.crc`
    files left out. Names only, so a poll on a store costs a listing, not a copy."""
    prefix = "state/0/0/"
    found = (name.removeprefix(prefix) for name in names if name.startswith(prefix))
    return [classify(name) for name in sorted(found) if not name.rsplit("/", 1)[-1].startswith(".")]


def cadence(fast: bool) -> dict[str, Any]:
    """The app's snapshot options: Spark's defaults (every 10 versions, maintenance every
    60 s), or every 3 versions with maintenance every 2 s under --fast."""
    return dict(FAST_CADENCE) if fast else {}


def snapshot_every(fast: bool) -> int:
    return int(cadence(fast).get("snapshot_every", SPARK_SNAPSHOT_EVERY))
