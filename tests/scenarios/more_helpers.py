"""Shared helpers for the poison-pill, chaos and parallelism tests: a checkpoint and log on disk.

A checkpoint folder is written in Spark's layout (`offsets/N`, `commits/N`), an output log in
the app's two-lines-per-message format, and a Stage is built on them without starting anything.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from scenarios.narration import Narrator
from scenarios.settings import RunSettings
from scenarios.stage import Stage

__all__ = ["idle_stage", "write_batch", "write_output"]


def write_batch(checkpoint: Path, batch: int, ends: Mapping[int, int], topic: str = "Experience",
                committed: bool = True) -> None:
    """offsets/<batch> with one end offset per partition, and commits/<batch> if committed."""
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    meta = {"batchWatermarkMs": 0, "batchTimestampMs": 1, "conf": {}}
    source = {topic: {str(p): o for p, o in ends.items()}}
    (checkpoint / "offsets" / str(batch)).write_text(f"v1\n{json.dumps(meta)}\n{json.dumps(source)}")
    if committed:
        (checkpoint / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def write_output(log: Path, values: Iterable[int], topic: str = "Experience") -> None:
    """The app's output lines for `values`, counted 1, 2, 3… in the order given."""
    log.parent.mkdir(parents=True, exist_ok=True)
    prefix = "[INFO] [2026-01-01 00:00:00,000] [StreamingOutput]: "
    log.write_text("".join(f"{prefix}Count = {n}\n{prefix}{topic}: {v} -> {v}\n"
                           for n, v in enumerate(values, start=1)))


def idle_stage(root: Path) -> Stage:
    """A Stage on `root` that has started nothing (its folders are used as they are)."""
    return Stage("test", RunSettings(), Narrator(stream=io.StringIO(), rich=False), root)
