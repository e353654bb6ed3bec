"""Seed 001 scenario #1, endless retention: kill, stop and crash the Spark app; nothing is lost.

Kafka keeps everything (retention one hour, "forever" for this story). The Spark app is killed
with kill -9 several times, stopped with SIGTERM once and crashed by a negative key once; each
time it is restarted on the same checkpoint. At the end the producer is stopped, the app
catches up, and the output log must hold every value 1..N exactly once with the final count N.

Usage: `python -m scenarios run endless-retention --fast`
"""

from __future__ import annotations

from collections.abc import Callable

from scenarios.catalog import steps
from scenarios.checker.expectations import check, counted_once, equals
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step

__all__ = ["SCENARIO", "run"]

_RESTART_WHY = (
    "Before running batch N Spark writes its end offsets to offsets/N; after the output it "
    "writes commits/N. On restart it reads the last offsets/N and, if commits/N is missing, runs "
    "batch N again with exactly those offsets, with the state of the last committed version."
)


_START_KAFKA = steps.start_kafka(
    happens="a broker and the producer; the topic keeps an hour of messages, far longer than "
    "this run, and the producer sends one a second, key = value = a counter",
    why="with retention longer than any outage, every offset a checkpoint can point to still "
    "exists when the app comes back",
    production="size retention for your worst outage plus the time to notice and fix it",
    question="Later, while the app is down, will Kafka's earliest offset move?",
    answer="No: with an hour's retention nothing is deleted during the run, so earliest stays 0 "
    "and every offset a checkpoint points to still exists (checked at the end).",
    giveaway=("stays 0", "never moved", "keeps everything", "nothing is deleted"),
    checks=("Kafka's earliest offset never moved",),
)


def run(stage: Stage) -> None:
    kills = 2 if stage.settings.fast else 3
    with stage.step(_START_KAFKA):
        stage.kafka.start()

    with stage.step(
        steps.first_start(
            question="With no checkpoint yet, which value does the app write first, and with "
            "which Count?",
            answer="Value 1 with Count = 1: a new query starts at startingOffsets (earliest), the "
            "topic's first offset.",
            giveaway=("value 1", "count = 1"),
            checks=("the first value written is 1, with Count = 1",),
        )
    ):
        stage.app.start()
        report = stage.output.wait_for_value(stage.timings.run_for_messages)
        if stage.query is None:  # a query's rows name no value: the oracle holds them at the end
            stage.expect(
                check(
                    "the first value written is 1, with Count = 1",
                    report.first_value == 1 and report.counts_consistent,
                    "value 1 first, Count = 1 with it",
                    f"value {report.first_value} first, counts "
                    + ("consistent" if report.counts_consistent else "broken"),
                )
            )

    for number in range(1, kills + 1):
        with stage.step(
            Step(
                f"kill -9 the Spark app ({number} of {kills})",
                happens="SIGKILL to the driver and its JVM: no shutdown hook, no flush; the "
                "producer goes on, and the app is started again on the same checkpoint",
                watch="the app's batch lines below stop mid-stream, with no last words; the "
                "restarted app's first batch line starts at the offset where the killed one's "
                "last planned batch did",
                why=_RESTART_WHY,
                production="a crash costs a replay of one batch, not data, as long as the sink "
                "is idempotent or transactional on the batch id",
                question="After the restart, will any value be missing from the output log, or "
                "written twice?",
                answer="Neither. The batch in flight is replayed with the same offsets and the "
                "exactly-once sink writes it once.",
                giveaway=("neither", "writes it once", "nothing is lost"),
                checks=("caught up exactly once",),
            )
        ):
            _down_and_up(stage, f"kill -9 number {number}", stage.app.kill)

    with stage.step(
        Step(
            "Stop the Spark app with SIGTERM",
            happens="the app closes its output gate (spark_app/query/graceful_stop.py): a batch "
            "that has begun writing may finish, one that has not writes nothing; then it calls "
            "query.stop() and exits; the app is started again on the same checkpoint",
            watch="the app's last line below: `Stopped cleanly; …` or `Stopped; …`, then the "
            "restarted app's batch lines",
            why="query.stop() on its own cancels the batch in flight instead of waiting for it; "
            "the gate is this app's own addition, not Spark's. Without it the checkpoint still "
            "makes a cut batch safe: it is replayed with the same offsets and the exactly-once "
            "sink does not write it twice",
            production="your job has no such gate unless you add one: its SIGTERM cancels the "
            "batch in flight. Stop gracefully on deploys, but rely on the replay (and a sink "
            "idempotent on the batch id), not on the stop, to finish a batch",
            question="With which exit code will the app stop, and will the restart lose or "
            "double anything?",
            answer="Exit code 0, and after the restart every value is there once: this app's "
            "output gate let the batch that had begun writing commit before stopping.",
            giveaway=("exit code 0", "exits 0"),
            checks=("SIGTERM exits cleanly", "caught up exactly once"),
        )
    ):

        def graceful() -> None:
            code = stage.app.stop()
            stage.expect(
                check("SIGTERM exits cleanly", code == 0, "exit code 0", f"exit code {code}")
            )

        _down_and_up(stage, "SIGTERM", graceful)

    _negative_key_crash(stage)

    with stage.step(
        steps.finish(
            question="After kill -9, SIGTERM and a crash, how many values will be missing from "
            "the output log, or written twice?",
            giveaway=("none:", "every value 1..n is there"),
        )
    ):
        stage.finish_exactly_once()
        deleted = stage.timeline.retention_deletions()
        stage.expect(
            check(
                "Kafka's earliest offset never moved",
                not deleted,
                "earliest 0 at every sample of the run",
                "never moved"
                if not deleted
                else f"moved {len(deleted)} time(s), first at {deleted[0][0]:.0f} s",
            ),
            step=_START_KAFKA,
        )


def _down_and_up(stage: Stage, label: str, bring_down: Callable[[], object]) -> None:
    stage.output.wait_for_more(2)
    bring_down()
    behind = stage.kafka.window().latest
    stage.say(f"down after {label}; the producer keeps sending (latest offset {behind})")
    # Let messages pile up while the app is down, so the restart has something to catch up on.
    stage.kafka.wait_for_latest(behind + 3, f"the latest offset to reach {behind + 3}")
    stage.app.start()
    latest = stage.kafka.window().latest
    report = stage.output.wait_for_value(latest)
    if stage.query is not None:  # caught up; what its rows hold, the oracle says at the end
        committed = stage.app.committed_offset() or 0
        stage.expect(
            check("caught up", committed >= latest, f"offset {latest} committed", committed)
        )
        return
    stage.expect(
        counted_once("caught up exactly once", report),
    )


def _negative_key_crash(stage: Stage) -> None:
    with stage.step(
        steps.negative_key(
            question="With which exit code will the app die, and how many times will the "
            "negative-key message be written after the restart?",
            answer="Exit code 255, and its `-v -> v` line exactly once: the crashed batch had no "
            "commit, so the restart replays it and the sink writes it once.",
            giveaway=("255", "exactly once"),
            checks=(
                "the app crashed itself on the negative key",
                "the negative-key message is written once after the restart",
            ),
        )
    ):
        stage.output.wait_for_more(1)
        value = stage.fact("negative_key_value", stage.kafka.send_negative_key())
        stage.say(f"the producer sent key -{value} with value {value}")
        code = stage.app.wait_exit(kind="crash")
        stage.expect(
            check(
                "the app crashed itself on the negative key",
                code == 255,
                "exit code 255",
                f"exit code {code}",
            )
        )
        stage.app.start()
        stage.output.wait_for_value(value + 1)
        if stage.query is not None:  # the replayed record is in the query's rows: the oracle's
            return
        written = stage.output.negative_key_lines(value)
        stage.expect(
            equals(
                "the negative-key message is written once after the restart",
                written,
                1,
                lambda n: f"{n} line(s) `-{value} -> {value}`",
            )
        )


SCENARIO = Scenario(
    name="endless-retention",
    title="kill, stop and crash the app; with endless retention nothing is lost or doubled",
    summary="Kafka keeps everything; the Spark app is killed (-9), stopped (SIGTERM) and crashed "
    "(negative key) and restarted each time; at the end every message is in the "
    "output exactly once.",
    origin="seed 001 scenario #1",
    about="what a kill -9, a stop and a crash of the Spark app cost",
    run=run,
    # It reads nothing of the checkpoint itself: the output log is its evidence.
    checkpoint_stores=("local", "hdfs", "s3"),
    takes_query=True,
    with_query=(
        "kill -9, SIGTERM and the crash on a record, restarts on the same checkpoint; the "
        "oracle at the end"
    ),
)
