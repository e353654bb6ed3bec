"""Module 6's exercise: run the at-least-once sink under kill -9 and count the doubles.

The job's checkpoint is on slow storage (every checkpoint write takes 1.5 s, as on S3), so the
moment between a batch's output and its `commits/N` is wide. The attendee runs it with
`--sink at-least-once`, kills it with kill -9 while it works, restarts it, and counts the values
the output log now holds twice. Done: at least one value doubled (a kill landed between output
and commit), none lost, and the answer is how many values the log holds more than once.

Usage: `python -m scenarios exercise count-the-doubles`, then `… --check N`
"""

from __future__ import annotations

from typing import Any

from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from scenarios.exercises.first_run import first_run

__all__ = ["EXERCISE", "SLOW_STORE"]

# Every checkpoint write takes this long: seed 000's S3, made steady.
SLOW_STORE = {"checkpoint_latency": "fixed:1500ms"}


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    return first_run(stage, **SLOW_STORE)


def _doubled(attempt: Attempt) -> int | None:
    report = attempt.output()
    return None if report is None else len(report.duplicated)


def judge(attempt: Attempt) -> Verdict:
    report = attempt.output()
    if report is None or not report.duplicated:
        return Verdict.not_yet(
            "no value is in the output log twice yet: run the job with the at-least-once sink "
            "and kill -9 it while a batch is being written, then start it again"
        )
    if report.missing:
        return Verdict.not_yet(
            "values are missing from the output log ("
            + ", ".join(str(r) for r in report.missing[:5])
            + "): at least once loses nothing, so something else went on"
        )
    if attempt.answer is None:
        return Verdict.not_yet(
            "the output log holds values written twice now: stop the job (Ctrl-C) and count "
            "how many values it holds more than once: --check N"
        )
    if not attempt.answer.strip().isdigit():
        return Verdict.not_yet(f"{attempt.answer!r} is not a number: --check N")
    if int(attempt.answer) != len(report.duplicated):
        return Verdict.not_yet(
            f"{int(attempt.answer)} is not how many values the output log holds more than once "
            "(now: if the job still runs, stop it first)"
        )
    return Verdict.passed(
        f"right: {len(report.duplicated)} value(s) twice, none lost: each kill that landed "
        "between a batch's output and its commits/N made the restart write that batch again; "
        "the exactly-once sink would have skipped it"
    )


def expected(attempt: Attempt) -> str:
    doubled = _doubled(attempt)
    return "no output log yet" if doubled is None else f"{doubled} (the log as it is now)"


EXERCISE = Exercise(
    name="count-the-doubles",
    module=6,
    title="run the at-least-once sink under kill -9 and count the doubles",
    minutes=10.0,
    situation="The job below keeps its checkpoint on slow storage: every checkpoint write "
    "takes 1.5 s, as on S3. It ran until value {processed} with the exactly-once sink.",
    task=(
        "Start it with the at-least-once sink: {app} --sink at-least-once",
        "While it writes, kill it from a third terminal with kill -9, and start it again; do "
        "that two or three times: pkill -9 -f {checkpoints}",
        "Stop it (Ctrl-C) and count the values the output log ({log}) holds more than once: "
        "{check} N",
    ),
    hints=(
        "A kill doubles values only when it lands after a batch's output and before its "
        "commits/N: the restart replays that batch, and at-least-once appends it again.",
        "Kill while the batch lines come, a second after one: the commit takes 1.5 s here.",
        "Count them with the checker: {verify} (its line `duplicated N value(s)`).",
    ),
    solution=(
        "{app} --sink at-least-once   and in a third terminal: pkill -9 -f {checkpoints}, "
        "then start it again; two or three times",
        "{verify}   its `duplicated N value(s)` is the answer: --check N",
        "wrong: another number; or no kill between output and commit (nothing doubled: "
        "--check says so)",
    ),
    setup=setup,
    judge=judge,
    answer_form="N",
    expected=expected,
    job_options=SLOW_STORE,
)
