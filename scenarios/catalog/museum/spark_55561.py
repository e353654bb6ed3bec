"""SPARK-55561: Kafka cut while a fresh query looks up its first offsets (admin calls retried?).

The ticket: the connector's `KafkaOffsetReaderAdmin.fetchPartitionOffsets` called Kafka's admin
client without the `withRetries` every other look-up of that class has, so one transient admin
error failed the query at once (apache/spark#54339 wraps it). Read in the served jars
(`javap -c`, 26 Nov 2026): 4.0.0's and 4.1.1's `fetchPartitionOffsets` call the admin bare,
4.2.0's goes through `withRetries`. Its only caller is `getOffsetRangesFromUnresolvedOffsets`,
which only the batch reads call (`KafkaBatch`, `KafkaRelation`: `spark.read.format("kafka")`);
`KafkaMicroBatchStream` and `KafkaSource` resolve their offsets through `fetchEarliestOffsets`,
`fetchLatestOffsets` and `fetchSpecificOffsets`, which are retried on every line.

The Spark app only streams, so the exhibit takes the path a streaming user fears, the one the
ticket's words suggest: a fresh query whose first offset look-up meets Kafka cut (the TCP
proxy of kafka-outage), the cut held until the connector has logged a failed attempt and
lifted within the retry window. The prediction from the bytecode: every line retries there,
so the run shows whether that holds, not the ticket's bug itself (a batch read, which the app
does not make). The museum's table records what ran (known_bug_table.py, "unreached").

Usage: `python -m scenarios run known-bugs --exhibits SPARK-55561 --fast`
"""

from __future__ import annotations

import re
import time

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import say_prediction
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from scenarios.engine.waiting import wait_until
from scenarios.report.narration import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import RAN_ON, bug_named, error_classes_in, judge

__all__ = ["EXHIBIT", "run", "RETRY_OPTIONS", "NUM_RETRIES", "RETRY_INTERVAL_MS",
           "API_TIMEOUT_MS", "retry_window_sec", "failed_attempts", "NEW_QUERY_WORDS"]

BUG = bug_named("SPARK-55561")

# The connector's look-up retries, shortened as kafka-outage does: each attempt's admin call
# gives up after API_TIMEOUT_MS, and the next one comes RETRY_INTERVAL_MS later on a new admin
# client. Kafka's admin refuses an API timeout below its request timeout, so both go down.
NUM_RETRIES = 3
RETRY_INTERVAL_MS = 1000
API_TIMEOUT_MS = 5000
RETRY_OPTIONS = (f"fetchOffset.numRetries={NUM_RETRIES}",
                 f"fetchOffset.retryIntervalMs={RETRY_INTERVAL_MS}",
                 f"kafka.default.api.timeout.ms={API_TIMEOUT_MS}",
                 f"kafka.request.timeout.ms={API_TIMEOUT_MS}")

# The app's line once its own check of Kafka passed, before Spark starts (spark_app/query/app.py,
# preflight): the cut comes after it, so it meets the connector, not the app's one quick try.
NEW_QUERY_WORDS = "New checkpoint: starting from startingOffsets="

# The connector's warning for a failed look-up inside withRetries (KafkaOffsetReaderAdmin), the
# same words on 4.0.0, 4.1.1 and 4.2.0.
_ATTEMPT = re.compile(r"Error in attempt (\d+) getting Kafka offsets")


def retry_window_sec(num_retries: int = NUM_RETRIES, interval_ms: int = RETRY_INTERVAL_MS,
                     api_timeout_ms: int = API_TIMEOUT_MS) -> float:
    """How long a look-up keeps trying before it fails the query: each attempt waits for the
    admin's timeout, then the interval (withRetries sleeps after every failed attempt)."""
    return num_retries * (api_timeout_ms + interval_ms) / 1000


def failed_attempts(log: str) -> list[int]:
    """The attempt numbers of the connector's failed look-ups in a piece of spark.log."""
    return [int(n) for n in _ATTEMPT.findall(log)]


def run(stage: Stage) -> None:
    folder = stage.folders.checkpoints
    started = time.monotonic()
    window = retry_window_sec()
    stage.step(Step(
        f"{BUG.ticket}: Kafka cut while a fresh query looks up its first offsets",
        happens=f"a new checkpoint; the app checks Kafka itself, then Kafka is cut (the proxy "
                f"between the app and the broker) while Spark starts and the query asks Kafka's "
                f"admin for its first offsets; the cut is lifted once the connector has logged a "
                f"failed attempt, within the retry window ({NUM_RETRIES} attempts of up to "
                f"{API_TIMEOUT_MS / 1000:g} s, {RETRY_INTERVAL_MS / 1000:g} s apart: about "
                f"{window:g} s)",
        watch="spark.log's `Error in attempt N getting Kafka offsets`, then whether the query "
              "commits its first batch or the app exits",
        why="a look-up the connector retries rides out a cut shorter than its retry window; "
            "one it does not retry fails the query at its first timeout",
        question="On the Spark line this run uses: will the fresh query ride out the cut, or "
                 "fail at its first admin timeout?",
        answer=f"By line, as run: {BUG.by_line()}. The checks hold this run against its line",
        production=BUG.workaround))
    mark = len(stage.app.spark_log())
    stage.app.start(source_options=RETRY_OPTIONS)
    stage.app.wait_while_up(lambda: NEW_QUERY_WORDS in stage.app.output() or None,
                            "the app's own check of Kafka to pass")
    stage.network.cut()
    cut_at = time.monotonic()
    met = _hold_until_met(stage, mark)
    held_sec = round(time.monotonic() - cut_at, 1)
    stage.network.restore()
    stage.say(f"the cut held {held_sec:g} s; failed attempts logged meanwhile: {met or 'none'}")
    stage.expect(check(f"{BUG.ticket}: the cut met the query's first offset look-up",
                       bool(met) or not stage.app.running,
                       "a failed attempt in spark.log while Kafka was cut (or the app's exit)",
                       f"attempts {met or 'none'}, app "
                       f"{'running' if stage.app.running else 'exited'}, cut {held_sec:g} s"),
                 phase="museum")
    version = say_prediction(stage, BUG)
    outcome, detail = _outcome(stage)
    stage.say(f"observed: {outcome} ({detail})")
    verdict = judge(BUG, version, outcome)
    stage.fact(BUG.ticket, {"spark": version, "outcome": outcome, "status": verdict.status,
                            "cut_sec": held_sec, "failed_attempts": met,
                            "all_failed_attempts": failed_attempts(stage.app.spark_log()[mark:]),
                            "seconds": round(time.monotonic() - started, 1)})
    stage.expect(check(f"{BUG.ticket}: {BUG.title}", verdict.held, verdict.expected,
                       verdict.actual), phase="museum")
    if stage.app.running:
        stage.app.stop()
    if folder.exists():
        stage.app.delete_checkpoint()


def _hold_until_met(stage: Stage, mark: int) -> list[int]:
    """Keep the cut until the connector logs a failed look-up (or the app exits); the attempts
    seen. Spark's start takes its time under the cut: the look-up comes at the first trigger."""
    def seen() -> tuple[bool, list[int]] | None:
        attempts = failed_attempts(stage.app.spark_log()[mark:])
        up = stage.app.running
        return (up, attempts) if attempts or not up else None  # a tuple: truthy either way

    _, attempts = wait_until(seen, timeout=stage.timings.spark_start_timeout_sec * 2, poll=0.25,
                             what="the connector's first failed look-up under the cut",
                             progress=stage.narrator.waiting)
    return attempts


def _outcome(stage: Stage) -> tuple[str, str]:
    """Once Kafka is back: RAN_ON when the query commits its first batch, else the app's error
    class when it exits."""
    folder = stage.folders.checkpoints

    def ended() -> str | None:
        if read_checkpoint(folder).commit_ids:
            return "committed"
        return None if stage.app.running else "exited"

    how = wait_until(ended, timeout=stage.timings.spark_start_timeout_sec * 2, poll=0.5,
                     what="the query to commit its first batch or the app to exit",
                     progress=stage.narrator.waiting)
    if how == "committed":
        return RAN_ON, f"committed batch {min(read_checkpoint(folder).commit_ids)} after the cut"
    code = stage.app.wait_exit(kind="crash")
    classes = error_classes_in(stage.app.output(), (BUG.when_present,))
    line = stage.app.process.tail(1).strip()[:400]
    return (classes[0] if classes else f"exit code {code}, no error class"), line


EXHIBIT = Exhibit(BUG, run, behind_proxy=True)
