"""Module 5's exercise: a poison pill crashes the job at every start; fix forward.

The job's release crashes on a negative key (`--on-negative-key crash-always`). The setup
runs it, sends the poison pill and lets it crash. The attendee sees the loop (the same batch
at every start), then deploys the fix, `--on-negative-key ignore`, on the same checkpoint.
Done: the same query (not a reset) got past the poison pill's offset, and the output log holds
every value once, the poison pill's included.

Usage: `python -m scenarios exercise fix-forward`, then `… --check`
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from spark_app.checkpoint.reader import read_checkpoint

__all__ = ["EXERCISE"]

BUGGY_RELEASE = {"on_negative_key": "crash-always"}


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    stage.app.start(**BUGGY_RELEASE)
    stage.output.wait_for_value(6)
    value = stage.kafka.send_negative_key()
    stage.app.wait_exit(kind="crash")
    info = read_checkpoint(stage.folders.checkpoints)
    return {
        "poison_value": value,
        "poison_offset": value - 1,
        "query_id": info.query_id,
        "stuck_batch": info.pending_id,
    }


def judge(attempt: Attempt) -> Verdict:
    value, offset = attempt.facts["poison_value"], attempt.facts["poison_offset"]
    info = attempt.checkpoint()
    if not attempt.same_query():
        return Verdict.not_yet(
            "the checkpoint was replaced (a new query id): the count started over and the job "
            "no longer knows what it counted; a fix goes forward on the same checkpoint",
            f"start it again: uv run python -m scenarios exercise {attempt.setup.name}",
        )
    committed = info.last_committed.end_total if info and info.last_committed else 0
    if (committed or 0) <= offset:
        return Verdict.not_yet(
            f"the checkpoint has not got past offset {offset} yet (value {value}, the message "
            "the job crashes on): its batch is still the one every start replays"
        )
    report = attempt.output()
    if report is None or report.duplicated or report.missing or not report.counts_consistent:
        what = (
            "no output log"
            if report is None
            else "; ".join(report.summary_lines()[1:4]) or "counts out of step"
        )
        return Verdict.not_yet(f"the output log is not every value once: {what}")
    return Verdict.passed(
        f"past the poison pill on the same checkpoint: value {value} and every other value "
        f"once (up to {report.highest}), the count unbroken; the stuck batch ran again with its "
        "own offsets and committed"
    )


EXERCISE = Exercise(
    name="fix-forward",
    module=5,
    title="a poison pill crashes the job at every start: get past it on the same checkpoint",
    minutes=8.0,
    situation="The job below runs a release that crashes on a message with a negative key. "
    "One came in (value {poison_value}, at offset {poison_offset}): the job died on it.",
    task=(
        "Start it again, twice if you like, and look where it is each time: {app} and {inspect}",
        "Get the job past that message without deleting its checkpoint, so that every message, "
        "the bad one too, is counted exactly once: the fixed release is an option of the app "
        "(uv run python -m spark_app --help).",
        "Let it run a few batches, then: {check}",
    ),
    hints=(
        "Each start replays the same batch (inspect: planned but not committed) with the same "
        "offsets, and meets the same message: deleting the checkpoint would lose the count.",
        "The release is --on-negative-key: which of its values does not crash?",
        "{app} --on-negative-key ignore (the last of a repeated option wins).",
    ),
    solution=(
        "{app}   (crashes again: Negative key … crash-always)",
        "{app} --on-negative-key ignore   (on the same checkpoint)",
        "wrong: {reset}, or deleting the checkpoint (a new query: the count starts over)",
    ),
    setup=setup,
    judge=judge,
    job_options=BUGGY_RELEASE,
)
