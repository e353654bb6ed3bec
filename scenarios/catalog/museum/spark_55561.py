"""SPARK-55561: Kafka cut at a batch read's first offset look-up; a stream's, for contrast.

The ticket: the connector's `KafkaOffsetReaderAdmin.fetchPartitionOffsets` called Kafka's admin
client without the `withRetries` every other look-up of that class has, so one transient admin
error failed the read at once (apache/spark#54339 wraps it). Read in the served jars
(`javap -c`, 26 Nov 2026): 4.0.0's and 4.1.1's `fetchPartitionOffsets` call the admin bare,
4.2.0's goes through `withRetries`. Its only caller is `getOffsetRangesFromUnresolvedOffsets`,
which only the batch reads call (`KafkaBatch`, `KafkaRelation`: `spark.read.format("kafka")`);
`KafkaMicroBatchStream` and `KafkaSource` resolve their offsets through `fetchEarliestOffsets`,
`fetchLatestOffsets` and `fetchSpecificOffsets`, which are retried on every line.

So the exhibit goes through that path with the app's one batch read (`python -m spark_app
read`): Kafka is cut (the TCP proxy of kafka-outage) while the read's session starts, and lifted
once the connector has logged a failed attempt, within the retry window; a line that does not
retry has failed by then. The table holds that outcome. Then the same cut meets a fresh
streaming query's first look-up, the path the ticket's words suggest to a streaming user: a
check that every line rides it out.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-55561 --fast`
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from launch.waiting import wait_until
from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import exhibit_step, say_prediction, verdict_name
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import RAN_ON, bug_named, error_classes_in, judge
from spark_app.lines.read_lines import READING_WORDS, parse_read_line
from spark_app.lines.start_lines import NEW_CHECKPOINT_WORDS

__all__ = [
    "EXHIBIT",
    "STEP",
    "STREAM",
    "run",
    "RETRY_OPTIONS",
    "NUM_RETRIES",
    "RETRY_INTERVAL_MS",
    "API_TIMEOUT_MS",
    "retry_window_sec",
    "failed_attempts",
]

BUG = bug_named("SPARK-55561")

# The connector's look-up retries, shortened as kafka-outage does: each attempt's admin call
# gives up after API_TIMEOUT_MS, and the next one comes RETRY_INTERVAL_MS later on a new admin
# client. Kafka's admin refuses an API timeout below its request timeout, so both go down.
NUM_RETRIES = 3
RETRY_INTERVAL_MS = 1000
API_TIMEOUT_MS = 5000
RETRY_OPTIONS = (
    f"fetchOffset.numRetries={NUM_RETRIES}",
    f"fetchOffset.retryIntervalMs={RETRY_INTERVAL_MS}",
    f"kafka.default.api.timeout.ms={API_TIMEOUT_MS}",
    f"kafka.request.timeout.ms={API_TIMEOUT_MS}",
)

# The connector's warning for a failed look-up inside withRetries (KafkaOffsetReaderAdmin), the
# same words on 4.0.0, 4.1.1 and 4.2.0.
_ATTEMPT = re.compile(r"Error in attempt (\d+) getting Kafka offsets")


def retry_window_sec(
    num_retries: int = NUM_RETRIES,
    interval_ms: int = RETRY_INTERVAL_MS,
    api_timeout_ms: int = API_TIMEOUT_MS,
) -> float:
    """How long a look-up keeps trying before it fails the query: each attempt waits for the
    admin's timeout, then the interval (withRetries sleeps after every failed attempt)."""
    return num_retries * (api_timeout_ms + interval_ms) / 1000


def failed_attempts(log: str) -> list[int]:
    """The attempt numbers of the connector's failed look-ups in a piece of spark.log."""
    return [int(n) for n in _ATTEMPT.findall(log)]


def _window_words() -> str:
    return (
        f"{NUM_RETRIES} attempts of up to {API_TIMEOUT_MS / 1000:g} s, "
        f"{RETRY_INTERVAL_MS / 1000:g} s apart: about {retry_window_sec():g} s"
    )


STEP = exhibit_step(
    BUG,
    "Kafka cut at a batch read's first offset look-up",
    happens="python -m spark_app read: one batch query of the topic through Spark's connector "
    '(spark.read.format("kafka"), earliest to latest); Kafka is cut (the proxy between the app '
    "and the broker) while its session starts, and lifted once the connector has logged a "
    f"failed attempt, within the retry window ({_window_words()})",
    watch="the read app's lines: its closing line (`read N records of …`) or its error line; "
    "the narration's line on how long the cut held and the failed attempts Spark logged "
    "meanwhile, then what the read did",
    why="a batch read resolves its offsets in fetchPartitionOffsets, whose admin calls a line "
    "either retries like every other look-up or makes once; once, a cut longer than one admin "
    "timeout fails the read. Spark logs each failed attempt in spark.log (`Error in attempt N "
    "getting Kafka offsets`)",
    question="On the Spark line this run uses: will the batch read ride out the cut, or fail at "
    "its first admin timeout?",
    giveaway=(BUG.when_present,),
    checks=(f"{BUG.ticket}: the cut met the read's first offset look-up",),
)
STREAM = Step(
    f"{BUG.ticket}, for contrast: the same cut at a fresh stream's first offset look-up",
    happens="the app on a new checkpoint; after its own check of Kafka, Kafka is cut while "
    f"Spark starts and lifted once the connector has logged a failed attempt ({_window_words()})",
    watch="the app's lines while Kafka is cut; the narration's line on the cut and the failed "
    "attempts Spark logged; then whether the app's batch lines begin",
    why="a stream resolves its first offsets in fetchEarliestOffsets and fetchLatestOffsets, "
    "which every line retries (withRetries): the ticket's path is the batch read's",
    question="Will the streaming query ride out the same cut on every Spark line?",
    answer="Yes on 4.0.0, 4.1.1 and 4.2.0 alike (checked): its first batch commits after the "
    "cut, whatever the line does with a batch read",
    production="size fetchOffset.numRetries and fetchOffset.retryIntervalMs to the outages a "
    "stream must ride out; supervise it for longer ones (kafka-outage)",
    giveaway=("yes on", "alike", "withretries"),
    checks=(f"{BUG.ticket}: a stream rides out the cut at its first look-up",),
)


def run(stage: Stage) -> None:
    started = time.monotonic()
    _batch_read(stage)
    _stream(stage)
    stage.fact(f"{BUG.ticket} seconds", round(time.monotonic() - started, 1))


def _batch_read(stage: Stage) -> None:
    with stage.step(STEP):
        version = say_prediction(stage, BUG)  # before the read: the run then shows it
        mark = len(stage.app.spark_log())
        process = stage.app.start_read(*(f"--source-option={o}" for o in RETRY_OPTIONS))
        stage.timeline.event("batch read", "start")
        wait_until(
            lambda: READING_WORDS in process.output() or not process.running,
            timeout=stage.timings.spark_start_timeout_sec,
            what="the read to start",
            progress=stage.waiting,
        )
        met, held_sec = _cut_until_met(stage, mark, lambda: process.running)
        code = process.wait_exit(stage.timings.spark_start_timeout_sec * 2, progress=stage.waiting)
        stage.timeline.event(f"read exit {code}", "exit" if code == 0 else "crash")
        output = process.output()
        line = process.tail(1).strip()[:400]
        if code == 0 and parse_read_line(output) is not None:
            outcome = RAN_ON
        else:
            classes = error_classes_in(output, (BUG.when_present,))
            outcome = classes[0] if classes else f"exit code {code}, no error class"
        stage.say(f"observed: {outcome} (exit code {code}: {line})")
        stage.expect(
            check(
                f"{BUG.ticket}: the cut met the read's first offset look-up",
                bool(met) or code != 0,
                "a failed attempt in spark.log while Kafka was cut, or the read's failure",
                f"attempts {met or 'none'}, exit code {code}, cut {held_sec:g} s",
            ),
        )
        verdict = judge(BUG, version, outcome)
        stage.fact(
            BUG.ticket,
            {
                "spark": version,
                "outcome": outcome,
                "status": verdict.status,
                "cut_sec": held_sec,
                "failed_attempts": met,
                "exit_code": code,
                "all_failed_attempts": failed_attempts(stage.app.spark_log()[mark:]),
            },
        )
        stage.expect(check(verdict_name(BUG), verdict.held, verdict.expected, verdict.actual))


def _stream(stage: Stage) -> None:
    folder = stage.folders.checkpoints
    with stage.step(STREAM):
        mark = len(stage.app.spark_log())
        stage.app.start(source_options=RETRY_OPTIONS)
        stage.app.wait_while_up(
            lambda: NEW_CHECKPOINT_WORDS in stage.app.output() or None,
            "the app's own check of Kafka to pass",
        )
        met, held_sec = _cut_until_met(stage, mark, lambda: stage.app.running)
        outcome, detail = _outcome(stage)
        stage.say(f"observed: {outcome} ({detail})")
        stage.fact(
            f"{BUG.ticket} stream",
            {"outcome": outcome, "cut_sec": held_sec, "failed_attempts": met},
        )
        stage.expect(
            check(
                f"{BUG.ticket}: a stream rides out the cut at its first look-up",
                outcome == RAN_ON and bool(met),
                f"a failed attempt under the cut, then {RAN_ON}",
                f"attempts {met or 'none'}, then {outcome}",
            ),
        )
        if stage.app.running:
            stage.app.stop()
        if folder.exists():
            stage.app.delete_checkpoint()


def _cut_until_met(stage: Stage, mark: int, up: Callable[[], bool]) -> tuple[list[int], float]:
    """Cut Kafka, keep it cut until the connector logs a failed look-up (or the process ends),
    restore it: the attempts seen, and how long the cut held. Spark's start takes its time
    under the cut: the look-up comes when the read is planned, or at a stream's first trigger."""
    stage.network.cut()
    cut_at = time.monotonic()

    def seen() -> tuple[bool, list[int]] | None:
        attempts = failed_attempts(stage.app.spark_log()[mark:])
        running = up()
        return (running, attempts) if attempts or not running else None  # a tuple: truthy

    _, attempts = wait_until(
        seen,
        timeout=stage.timings.spark_start_timeout_sec * 2,
        poll=0.25,
        what="the connector's first failed look-up under the cut",
        progress=stage.waiting,
    )
    held = round(time.monotonic() - cut_at, 1)
    stage.network.restore()
    stage.say(f"the cut held {held:g} s; failed attempts logged meanwhile: {attempts or 'none'}")
    return attempts, held


def _outcome(stage: Stage) -> tuple[str, str]:
    """Once Kafka is back: RAN_ON when the query commits its first batch, else the app's error
    class when it exits."""
    folder = stage.folders.checkpoints

    def ended() -> str | None:
        if read_checkpoint(folder).commit_ids:
            return "committed"
        return None if stage.app.running else "exited"

    how = wait_until(
        ended,
        timeout=stage.timings.spark_start_timeout_sec * 2,
        poll=0.5,
        what="the query to commit its first batch or the app to exit",
        progress=stage.waiting,
    )
    if how == "committed":
        return RAN_ON, f"committed batch {min(read_checkpoint(folder).commit_ids)} after the cut"
    code = stage.app.wait_exit(kind="crash")
    classes = error_classes_in(stage.app.output(), (BUG.when_present,))
    line = stage.app.process.tail(1).strip()[:400]
    return (classes[0] if classes else f"exit code {code}, no error class"), line


EXHIBIT = Exhibit(BUG, run, behind_proxy=True)
