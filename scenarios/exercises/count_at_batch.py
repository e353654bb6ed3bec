"""Module 8's exercise: read the count the state held after an earlier batch, without the query.

The setup runs the job for several batches and stops it. The attendee reads the state as batch
K left it with Spark's State Data Source (`inspect --state-batch K`) and gives the count. The
judge holds the answer to the checkpoint itself: batch K's planned end (`offsets/K`) less where
the query started (`sources/0/0`) is how many messages the state had counted after it.

Usage: `python -m scenarios exercise count-at-batch`, then `… --check COUNT`
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from spark_app.checkpoint.reader import committed_batches, read_checkpoint

__all__ = ["EXERCISE", "count_after"]

# Batches the job runs before it is stopped, and how far back from the last the asked one is.
BATCHES = 8
BACK = 3


def count_after(checkpoint_batches: list[Any], start_total: int, batch: int) -> int | None:
    """How many messages the state had counted after `batch`: its end less the start."""
    found = next((b for b in checkpoint_batches if b.batch_id == batch), None)
    return None if found is None or found.end_total is None else found.end_total - start_total


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    stage.app.start()
    stage.app.wait_while_up(
        lambda: len(read_checkpoint(stage.folders.checkpoints).commit_ids) >= BATCHES or None,
        f"{BATCHES} committed batches",
        poll=0.5,
    )
    stage.app.stop()
    info = read_checkpoint(stage.folders.checkpoints)
    start = sum((info.initial_offsets or {}).values())
    batch = max(1, (info.last_committed_id or 0) - BACK)
    count = count_after(committed_batches(stage.folders.checkpoints), start, batch)
    return {
        "query_id": info.query_id,
        "last_batch": info.last_committed_id,
        "batch": batch,
        "count_after_batch": count,
    }


def judge(attempt: Attempt) -> Verdict:
    batch, count = attempt.facts["batch"], attempt.facts["count_after_batch"]
    if attempt.answer is None:
        return Verdict.not_yet(f"give the count the state held after batch {batch}: --check COUNT")
    if not attempt.answer.strip().isdigit():
        return Verdict.not_yet(f"{attempt.answer!r} is not a count: --check COUNT")
    if int(attempt.answer) != count:
        return Verdict.not_yet(
            f"{int(attempt.answer)} is not the count the state held after batch {batch}"
        )
    return Verdict.passed(
        f"right: after batch {batch} the state held {count}, which is where offsets/{batch} "
        "ends less where sources/0/0 started: a batch's state version is the checkpoint's "
        "record of the count at that moment, readable without running the query"
    )


def expected(attempt: Attempt) -> str:
    return str(attempt.facts["count_after_batch"])


EXERCISE = Exercise(
    name="count-at-batch",
    module=8,
    title="read the count the state held after an earlier batch, with the State Data Source",
    minutes=6.0,
    situation="The job below ran {last_batch} batches after its first and is stopped. Someone "
    "asks what its count was right after batch {batch}.",
    task=(
        "Read the state as batch {batch} left it, with Spark's State Data Source: {inspect} "
        "(uv run python -m spark_app inspect --help: the option that picks a batch)",
        "Give the count: {check} COUNT",
    ),
    hints=(
        "inspect reads the state of the last committed batch by default; one of its options "
        "reads it as another batch left it (Spark's batchId option).",
        "{inspect} --state-batch {batch}",
        "Its line `count held in state`, or the State Data Source's lines under it.",
    ),
    solution=(
        "{inspect} --state-batch {batch}   (count {count_after_batch})",
        "cross-check: offsets/{batch} ends at offset {count_after_batch} (value v sits at v-1)",
        "wrong: the count of the last batch (inspect without --state-batch)",
    ),
    setup=setup,
    judge=judge,
    answer_form="COUNT",
    expected=expected,
)
