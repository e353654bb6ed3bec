"""Module 4's exercise: move to a new checkpoint from explicit offsets, nothing lost or doubled.

The setup runs the job and stops it. The attendee must start the job on a new checkpoint (the
reason in production: a change the old one refuses), reading with `inspect` where the old one
resumes, resetting, and starting with `--starting-offsets` set to exactly that. Done: a new
query (another query id), whose first value follows the old run's last, so that the output,
old and new together, holds every value once; the count starts over at 1 there, as a new
checkpoint's does.

Usage: `python -m scenarios exercise reset-from-offsets`, then `… --check`
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
    info = attempt.checkpoint()
    if info is None or not info.exists or info.is_new:
        return Verdict.not_yet("the checkpoint folder holds no batch yet: start the job on it")
    if attempt.same_query():
        return Verdict.not_yet(
            f"the job still runs on the old checkpoint (query id {info.query_id}): the task is "
            "a new one, started where the old one ends"
        )
    if not info.commit_ids:
        return Verdict.not_yet("the new checkpoint has no committed batch yet: let it run")
    report = attempt.history()
    if (report.highest or 0) <= processed:
        return Verdict.not_yet(f"nothing after value {processed} has been written yet: let it run")
    lost = [r for r in report.missing if r.first > 0]
    problems = []
    if lost:
        problems.append(
            "lost: values " + ", ".join(str(r) for r in lost) + " are in no output log (the "
            "new checkpoint started after them)"
        )
    if report.duplicated:
        doubled = sorted(report.duplicated)
        problems.append(
            f"counted twice: {len(doubled)} value(s), from {doubled[0]} to {doubled[-1]} (the "
            "new checkpoint started before the old one's end)"
        )
    if problems:
        return Verdict.not_yet(*problems)
    return Verdict.passed(
        f"a new checkpoint (query id {info.query_id}) that started right after value "
        f"{processed}: every value once, old run and new together; its count starts over at 1, "
        "as a new checkpoint's does"
    )


def expected(attempt: Attempt) -> str:
    return f"--starting-offsets '{attempt.facts['resume_json']}'"


EXERCISE = Exercise(
    name="reset-from-offsets",
    module=4,
    title="restart a reset query from the offsets inspect reads, nothing lost or doubled",
    minutes=8.0,
    situation="The job below ran until value {processed} and is stopped. Its next release "
    "needs a new checkpoint (the old one would refuse it), and the job must not lose or count "
    "twice a single message in the move.",
    task=(
        "Read where the old checkpoint resumes: {inspect}",
        "Reset it (the checkpoint is emptied, the output log moved aside): {reset}",
        "Start the job on the new, empty checkpoint so that it reads exactly from there: "
        "{app} --starting-offsets '…' (uv run python -m spark_app --help says the format)",
        "Let it write a few values, then: {check}",
    ),
    hints=(
        "A new checkpoint starts where --starting-offsets says (earliest by default): earliest "
        "counts the old values again, latest skips what came in meanwhile.",
        "inspect's line `resumes from:` is the offset to start from; the format is JSON: "
        '{{"TOPIC":{{"PARTITION":OFFSET}}}}.',
        '{app} --starting-offsets \'{{"Experience":{{"0":N}}}}\' with N the offset inspect '
        "printed (value N+1 sits at offset N).",
    ),
    solution=(
        "{inspect}   (resumes from Experience-0 at offset {resume_offset})",
        "{reset}",
        "{app} --starting-offsets '{resume_json}'",
        "wrong: earliest (values 1..{processed} doubled) or latest (the values sent meanwhile lost)",
    ),
    setup=setup,
    judge=judge,
    expected=expected,
)
