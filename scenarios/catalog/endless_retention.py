"""Seed 001 scenario #1, endless retention: kill, stop and crash the Spark app; nothing is lost.

Kafka keeps everything (retention one hour, "forever" for this story). The Spark app is killed
with kill -9 several times, stopped with SIGTERM once and crashed by a negative key once; each
time it is restarted on the same checkpoint. At the end the producer is stopped, the app
catches up, and the output log must hold every value 1..N exactly once with the final count N.

Usage: `python -m scenarios run endless-retention --fast`
"""

from __future__ import annotations

from collections.abc import Callable

from scenarios.checker.expectations import check, equals
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step

__all__ = ["SCENARIO", "run"]

_RESTART_WHY = (
    "Before running batch N Spark writes its end offsets to offsets/N; after the output it "
    "writes commits/N. On restart it reads the last offsets/N and, if commits/N is missing, runs "
    "batch N again with exactly those offsets, with the state of the last committed version."
)


def run(stage: Stage) -> None:
    t = stage.timings
    kills = 2 if stage.settings.fast else 3
    stage.step(
        Step(
            "Start Kafka with endless retention and the producer",
            happens=f"a broker and the producer; topic retention {t.endless_retention_sec:g} s, "
            "one message per interval, key = value = a counter",
            watch="the producer's `Experience [earliest:latest]` lines: earliest stays 0",
            why="with retention longer than any outage, every offset a checkpoint can point to "
            "still exists when the app comes back",
            production="size retention for your worst outage plus the time to notice and fix it",
            question="Later, while the app is down, will Kafka's earliest offset move?",
            answer="No: with an hour's retention nothing is deleted during the run, so earliest stays 0 "
            "and every offset a checkpoint points to still exists.",
        )
    )
    stage.kafka.start()

    stage.step(
        Step(
            "Start the Spark app",
            happens="the stateful counter starts a new query (no checkpoint yet) from the earliest offset",
            watch="two lines per message in log/streaming-output.log: Count = n, then Experience: n -> n",
            why="a new query takes startingOffsets; from now on only the checkpoint decides where it reads",
            production="pin the checkpoint folder to durable storage; it is the query's identity",
            question="With no checkpoint yet, which value does the app write first, and with which "
            "Count?",
            answer="Value 1 with Count = 1: a new query starts at startingOffsets (earliest), the "
            "topic's first offset.",
        )
    )
    stage.app.start()
    stage.output.wait_for_value(t.run_for_messages)

    for number in range(1, kills + 1):
        _down_and_up(
            stage,
            f"kill -9 number {number}",
            stage.app.kill,
            Step(
                f"kill -9 the Spark app ({number} of {kills})",
                happens="SIGKILL to the driver and its JVM: no shutdown hook, no flush",
                watch="the batch in flight has offsets/N but no commits/N; the restart replays it",
                why=_RESTART_WHY,
                production="a crash costs a replay of one batch, not data, as long as the sink "
                "is idempotent or transactional on the batch id",
                question="After the restart, will any value be missing from the output log, or written "
                "twice?",
                answer="Neither: 'caught up exactly once' holds. The batch in flight is replayed with "
                "the same offsets and the exactly-once sink writes it once.",
            ),
        )

    def graceful() -> None:
        code = stage.app.stop()
        stage.expect(check("SIGTERM exits cleanly", code == 0, "exit code 0", f"exit code {code}"))

    _down_and_up(
        stage,
        "SIGTERM",
        graceful,
        Step(
            "Stop the Spark app with SIGTERM",
            happens="the app closes its output gate (spark_app/query/graceful_stop.py): a batch that has "
            "begun writing is let commit, one that has not writes nothing; then it calls "
            "query.stop() and exits 0",
            watch="the last batch that wrote has both offsets/N and commits/N; a batch planned after "
            "the stop has offsets/N only and the restart replays it",
            why="query.stop() on its own cancels the batch in flight instead of waiting for it; the "
            "gate is this app's own addition, not Spark's. Without it the checkpoint still makes "
            "a cut batch safe: it is replayed with the same offsets and the exactly-once sink "
            "does not write it twice",
            production="your job has no such gate unless you add one: its SIGTERM cancels the batch "
            "in flight. Stop gracefully on deploys, but rely on the replay (and a sink "
            "idempotent on the batch id), not on the stop, to finish a batch",
            question="Will the app exit 0, and will the restart lose or double anything?",
            answer="It exits 0 (checked) and after the restart every value is there once: this app's "
            "output gate let the batch that had begun writing commit before stopping.",
        ),
    )

    _negative_key_crash(stage)
    _finish(stage)


def _down_and_up(stage: Stage, label: str, bring_down: Callable[[], object], step: Step) -> None:
    stage.step(step)
    stage.output.wait_for_more(2)
    bring_down()
    behind = stage.kafka.window().latest
    stage.say(f"down after {label}; the producer keeps sending (latest offset {behind})")
    # Let messages pile up while the app is down, so the restart has something to catch up on.
    stage.kafka.wait_for_latest(behind + 3, f"the latest offset to reach {behind + 3}")
    stage.app.start()
    latest = stage.kafka.window().latest
    report = stage.output.wait_for_value(latest)
    stage.expect(
        check(
            "caught up exactly once",
            report.ok,
            "every value once, counts consistent",
            "; ".join(report.summary_lines()[1:]),
        ),
    )


def _negative_key_crash(stage: Stage) -> None:
    stage.step(
        Step(
            "Press Enter in the producer: the next key is negative",
            happens="the Spark app sees a negative key and kills itself at once (crash-once), like "
            "the seed's Runtime.getRuntime.halt(-1)",
            watch="the app exits 255 in the middle of a batch; after the restart the same message "
            "is processed and written once",
            why="the crashed batch has no commit, so the restart replays the same offsets; the "
            "exactly-once sink rolls back a half-written batch before the replay",
            production="a crash in the middle of a batch is a replay, not a loss; make sure the code "
            "does not crash again on the same record (see the poison-pill scenario)",
            question="With which exit code will the app die, and how many times will the negative-key "
            "message be written after the restart?",
            answer="Exit code 255, and its `-v -> v` line exactly once: the crashed batch had no "
            "commit, so the restart replays it and the sink writes it once.",
        )
    )
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
    written = stage.output.negative_key_lines(value)
    stage.expect(
        equals(
            "the negative-key message is written once after the restart",
            written,
            1,
            lambda n: f"{n} line(s) `-{value} -> {value}`",
        )
    )


def _finish(stage: Stage) -> None:
    stage.step(
        Step(
            "Stop the producer, let the app catch up, check the output log",
            happens="no new messages; the app processes what is left and the scenario verifies the log",
            watch="`python -m scenarios verify` reports every value once and the final count N",
            why="exactly-once = the checkpoint's offsets + state + an output keyed on the batch id",
            production="run the same check on your sink: count distinct ids against the source",
            question="After kill -9, SIGTERM and a crash, how many values will be missing or doubled?",
            answer="None: every value 1..N exactly once, and the last Count is N (the final check).",
        )
    )
    stage.finish_exactly_once()


SCENARIO = Scenario(
    name="endless-retention",
    title="kill, stop and crash the app; with endless retention nothing is lost or doubled",
    summary="Kafka keeps everything; the Spark app is killed (-9), stopped (SIGTERM) and crashed "
    "(negative key) and restarted each time; at the end every message is in the "
    "output exactly once.",
    origin="seed 001 scenario #1",
    run=run,
    # It reads nothing of the checkpoint itself: the output log is its evidence.
    checkpoint_stores=("local", "hdfs", "s3"),
)
