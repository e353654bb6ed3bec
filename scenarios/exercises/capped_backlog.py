"""Module 9's exercise: catch up a backlog in batches of a bounded size.

The setup runs the job, stops it, and sends a backlog of messages as fast as Kafka takes them.
A plain restart reads it all in one giant batch. The attendee restarts with a cap,
`--max-offsets-per-trigger`, of at most the given size. Done: every batch planned after the
restart read no more than the cap, the job caught up with the backlog, and the output log holds
every value once on the same checkpoint.

Usage: `python -m scenarios exercise capped-backlog`, then `… --check`
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from scenarios.exercises.first_run import first_run
from spark_app.checkpoint.reader import committed_batches

__all__ = ["BACKLOG", "CAP", "EXERCISE", "batch_sizes"]

BACKLOG = 3000
CAP = 500


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    facts = first_run(stage)
    window = stage.kafka.send_backlog(BACKLOG)
    return {**facts, "backlog_end": window.latest, "cap": CAP, "backlog": BACKLOG}


def batch_sizes(attempt: Attempt) -> list[tuple[int, int]]:
    """(batch id, offsets read) of every batch committed after the setup's last one."""
    after = attempt.facts["last_batch"]
    batches = committed_batches(attempt.ws.checkpoints)
    ends = {b.batch_id: b.end_total or 0 for b in batches}
    return [
        (b.batch_id, (b.end_total or 0) - ends.get(b.batch_id - 1, 0))
        for b in batches
        if b.batch_id > after
    ]


def judge(attempt: Attempt) -> Verdict:
    cap, end = attempt.facts["cap"], attempt.facts["backlog_end"]
    if not attempt.same_query():
        return Verdict.not_yet(
            "the checkpoint was replaced (a new query): a backlog is caught up on the job's own "
            "checkpoint, or its count starts over",
            f"start it again: uv run python -m scenarios exercise {attempt.setup.name}",
        )
    sizes = batch_sizes(attempt)
    if not sizes:
        return Verdict.not_yet("no batch has been committed since the setup: restart the job")
    big = [(batch, size) for batch, size in sizes if size > cap]
    if big:
        batch, size = max(big, key=lambda b: b[1])
        return Verdict.not_yet(
            f"batch {batch} read {size:,} offsets at once, more than {cap}: the backlog went in "
            f"{'one giant batch' if size > end // 2 else 'batches too large'}",
            f"start it again: uv run python -m scenarios exercise {attempt.setup.name}",
        )
    reached = max(b.end_total or 0 for b in committed_batches(attempt.ws.checkpoints))
    if reached < end:
        return Verdict.not_yet(
            f"{len(sizes)} batch(es) of at most {cap} so far, up to offset {reached:,} of the "
            f"backlog's {end:,}: let it catch up"
        )
    report = attempt.output()
    if report is None or not report.ok:
        shown = "no output log" if report is None else "; ".join(report.summary_lines()[2:5])
        return Verdict.not_yet(f"the output log is not every value once: {shown}")
    largest = max(size for _, size in sizes)
    return Verdict.passed(
        f"caught up in {len(sizes)} batch(es), the largest {largest} offsets, none above {cap}, "
        "every value once: a cap keeps each batch's memory and time bounded after an outage"
    )


EXERCISE = Exercise(
    name="capped-backlog",
    module=9,
    title="catch up a backlog with a cap on every batch",
    minutes=8.0,
    situation="The job below was stopped after value {processed}; meanwhile a backlog of "
    "{backlog} messages came in at once (Kafka's latest offset is past {backlog_end} now).",
    task=(
        "Restart the job so that no batch reads more than {cap} offsets, and let it catch up "
        "with the backlog (uv run python -m spark_app --help: the source's rate limits).",
        "Watch its batch lines (rows=…), then: {check}",
    ),
    hints=(
        "A plain restart plans one batch from the checkpoint's offset to Kafka's latest: the "
        "whole backlog at once.",
        "Spark's Kafka source caps a batch with maxOffsetsPerTrigger.",
        "{app} --max-offsets-per-trigger {cap}",
    ),
    solution=(
        "{app} --max-offsets-per-trigger {cap}   (batches of {cap} until it has caught up)",
        "wrong: {app} alone (one batch of the whole backlog; start the exercise again)",
    ),
    setup=setup,
    judge=judge,
)
