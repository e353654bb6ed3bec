"""Module 7's exercise: a release with two changes; ship the one the checkpoint accepts.

The new release keeps a second field in the count's state (`--state-schema v2`) and writes
partition@offset in each output line (`--output-format v2`). The checkpoint refuses the first
(CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED) and takes the second. Done: the same query (no
reset) writes lines in the new format after the old ones, every value once, the count going on.

Usage: `python -m scenarios exercise allowed-change`, then `… --check`
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from scenarios.exercises.first_run import first_run

__all__ = ["EXERCISE"]


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    return first_run(stage)


def judge(attempt: Attempt) -> Verdict:
    processed = attempt.facts["processed"]
    report = attempt.history()
    if not attempt.same_query() or report.count_resets:
        return Verdict.not_yet(
            "the checkpoint was replaced (a new query): the count started over, so the release "
            "went out on a reset; one of its two changes needs none",
            f"start it again: uv run python -m scenarios exercise {attempt.setup.name}",
        )
    if not report.v2_messages:
        return Verdict.not_yet(
            "no output line in the new format yet: the change the checkpoint accepts is not running"
        )
    if (report.highest or 0) <= processed or not report.ok:
        return Verdict.not_yet(
            "the output log, old lines and new, is not every value once with the count going "
            "on: " + "; ".join(report.summary_lines()[2:5])
        )
    return Verdict.passed(
        f"the output format changed on the same checkpoint: {report.v2_messages} line(s) in the "
        f"new format after value {processed}, every value once, the count unbroken; the state "
        "schema change waits for a new checkpoint (from explicit offsets)"
    )


EXERCISE = Exercise(
    name="allowed-change",
    module=7,
    title="make a code change the checkpoint accepts, after one it refuses",
    minutes=8.0,
    situation="The job below ran until value {processed} and is stopped. Its new release has "
    "two changes: it keeps a second field in the count's state (--state-schema v2) and writes "
    "partition@offset in each output line (--output-format v2).",
    task=(
        "Start the new release on the job's checkpoint: {app} --state-schema v2 --output-format v2",
        "The checkpoint refuses one of the two changes. Find which (its line, {inspect}), and "
        "ship the other one alone, on the same checkpoint.",
        "Let it write a few values, then: {check}",
    ),
    hints=(
        "The app's last line names Spark's error class: which part of the checkpoint does it "
        "speak of?",
        "A checkpoint's state has a schema, kept in state/…/_metadata: a restart must read it "
        "with the same one. The output is not in the checkpoint.",
        "{app} --output-format v2",
    ),
    solution=(
        "{app} --state-schema v2 --output-format v2   (refused: "
        "CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED)",
        "{app} --output-format v2   (continues on the same checkpoint)",
        "wrong: deleting the checkpoint to ship both (the count starts over)",
    ),
    setup=setup,
    judge=judge,
)
