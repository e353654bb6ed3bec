"""The start most setups share: Kafka and the producer, the job run for a while, stopped cleanly.

Usage:
    stage.kafka.start()
    facts = first_run(stage, until_value=8)   # {"processed": 8, "query_id": "…", "last_batch": 5, …}
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.offsets import offsets_to_text

__all__ = ["FIRST_RUN_VALUES", "first_run", "run_facts"]

# Values the job writes before the setup stops it: a few batches, so the checkpoint has state.
FIRST_RUN_VALUES = 8


def run_facts(stage: Stage) -> dict[str, Any]:
    """What the checkpoint and the output log say after a clean stop."""
    info = read_checkpoint(stage.folders.checkpoints)
    end = info.last_committed.end if info.last_committed else None
    return {
        "processed": stage.output.verify().highest or 0,
        "query_id": info.query_id,
        "last_batch": info.last_committed_id,
        "resume_offset": stage.app.committed_offset(),
        # Where the checkpoint resumes, as --starting-offsets takes it.
        "resume_json": offsets_to_text(end) if end else None,
    }


def first_run(stage: Stage, until_value: int = FIRST_RUN_VALUES, **options: Any) -> dict[str, Any]:
    """Start the job with `options`, let it write `until_value`, commit it, stop it cleanly."""
    stage.app.start(**options)
    stage.output.wait_for_value(until_value)
    stage.catch_up(until_value)
    stage.app.stop()
    return run_facts(stage)
