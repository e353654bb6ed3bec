"""Module 3's exercise: restart past retention with failOnDataLoss=false, name what was skipped.

The setup runs the job, stops it, and lets retention delete offsets its checkpoint has not
read (retention shortened while it is down, then raised again so nothing more goes). The
attendee meets the data-loss error, restarts with `--fail-on-data-loss false`, and names the
offsets the job skipped as spark.log's warnings give them. Done: the job went on with its
count (no reset, nothing doubled) and the answer is the range the warnings name together,
which is exactly the values missing from the output log.

Usage: `python -m scenarios exercise skipped-range`, then `… --check FROM-UNTIL`
"""

from __future__ import annotations

import re
from typing import Any

from scenarios.checker.verify import ValueRange
from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Attempt, Exercise, Verdict
from scenarios.exercises.first_run import first_run
from spark_app.lines.data_loss_lines import SKIP_WARNING_GREP, skipped_ranges_in

__all__ = ["EXERCISE", "joined", "parse_range"]


def setup(stage: Stage) -> dict[str, Any]:
    stage.kafka.start()
    facts = first_run(stage)
    t = stage.timings
    stage.kafka.set_retention(t.retention_sec)
    stage.kafka.wait_until_aged_out(facts["processed"])
    stage.kafka.set_retention(t.endless_retention_sec)
    settled = stage.kafka.wait_until_earliest_settles()
    return {**facts, "earliest": settled.earliest}


def joined(ranges: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The one range consecutive [a, b) ranges make up, or None if they leave a gap."""
    if not ranges:
        return None
    start, end = ranges[0]
    for a, b in ranges[1:]:
        if a != end:
            return None
        end = b
    return start, end


def parse_range(answer: str) -> tuple[int, int] | None:
    """FROM-UNTIL, as `12-40`, `[12, 40)`, `12..40` or `12 40`: the two numbers in it."""
    numbers = [int(n) for n in re.findall(r"\d+", answer)]
    return (numbers[0], numbers[1]) if len(numbers) == 2 else None


def judge(attempt: Attempt) -> Verdict:
    processed = attempt.facts["processed"]
    report = attempt.history()
    if not attempt.same_query() or report.count_resets:
        return Verdict.not_yet(
            "the checkpoint was replaced: the count started over (a reset), so the job no longer "
            "knows what it counted; this exercise keeps the checkpoint",
            f"start it again: uv run python -m scenarios exercise {attempt.setup.name}",
        )
    if (report.highest or 0) <= processed:
        return Verdict.not_yet(
            f"the job has written nothing after value {processed} yet: restart it so that it "
            "goes on past what Kafka deleted"
        )
    if report.duplicated:
        return Verdict.not_yet(f"{len(report.duplicated)} value(s) are in the output log twice")
    skipped = joined(skipped_ranges_in(attempt.spark_log()))
    went_on = f"the job went on: its count did not restart, and it has written up to value {report.highest}"
    if skipped is None:
        return Verdict.not_yet(
            went_on,
            "but spark.log names no skipped range: was it restarted "
            "with this exercise's --log-dir?",
        )
    if attempt.answer is None:
        return Verdict.not_yet(
            went_on,
            "now name the offsets it skipped, as spark.log gives them: --check FROM-UNTIL",
        )
    given = parse_range(attempt.answer)
    if given is None:
        return Verdict.not_yet(
            f"{attempt.answer!r} is not a range: give it as FROM-UNTIL, e.g. 12-40 for offsets "
            "12 up to 40, 40 not included"
        )
    if given != skipped:
        return Verdict.not_yet(
            went_on,
            f"{given[0]}-{given[1]} is not the range spark.log's skip warnings name (together, "
            "when there are several; UNTIL not included, as Spark writes it)",
        )
    lost = ValueRange(skipped[0] + 1, skipped[1])
    if report.missing != (lost,):
        return Verdict.not_yet(
            went_on,
            "the output log misses "
            + (", ".join(str(r) for r in report.missing) or "nothing")
            + f", where the skipped offsets are values {lost}: something else went on",
        )
    return Verdict.passed(
        went_on,
        f"right: offsets [{skipped[0]}, {skipped[1]}) were skipped, and the output log misses "
        f"exactly their values, {lost}: record the range and backfill it",
    )


def expected(attempt: Attempt) -> str:
    skipped = joined(skipped_ranges_in(attempt.spark_log()))
    if skipped is not None:
        return f"{skipped[0]}-{skipped[1]} (spark.log's skip warnings, joined)"
    f = attempt.facts
    return (
        f"{f['processed']}-{f['earliest']} once the job runs with --fail-on-data-loss false "
        "(the checkpoint's offset to Kafka's earliest)"
    )


EXERCISE = Exercise(
    name="skipped-range",
    module=3,
    title="restart past retention with failOnDataLoss=false and name the skipped range",
    minutes=8.0,
    situation="The job below was stopped after value {processed}, and stayed down longer than "
    "its topic's retention: Kafka has deleted messages its checkpoint has not read yet "
    "(retention is long again now, so nothing more goes).",
    task=(
        "Start the job as it is, and read its last line: why does it stop?  {app}",
        "Restart it on the same checkpoint so that it goes on past what is gone (an option of "
        "the app: uv run python -m spark_app --help).",
        "Find in {spark_log} which offsets the job skipped, and name them: {check} FROM-UNTIL "
        "(e.g. 12-40 for offsets 12 up to 40, 40 not included).",
    ),
    hints=(
        "The first start fails with KAFKA_DATA_LOSS: the checkpoint points at offsets Kafka "
        "deleted. Which option tells the Kafka source not to fail on data loss?",
        "Restart with: {app} --fail-on-data-loss false. Let it write a few values.",
        f"The skip warnings: {SKIP_WARNING_GREP} {{spark_log}}. Several warnings join into one "
        "range: the first one's FROM, the last one's UNTIL.",
    ),
    solution=(
        "{app}   (fails: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE)",
        "{app} --fail-on-data-loss false",
        f"{SKIP_WARNING_GREP} {{spark_log}}, joined: from the checkpoint's offset to Kafka's "
        "earliest; --check FROM-UNTIL",
        "wrong: a reset (the count restarts), or a range off by one",
    ),
    setup=setup,
    judge=judge,
    answer_form="FROM-UNTIL",
    expected=expected,
)
