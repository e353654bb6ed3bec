"""Poison pill: a message the code cannot handle crashes the app on every restart, at the same offset.

Seed 001's negative key crashes the Spark app. With `--on-negative-key crash-once` the app
survives its restart; with `crash-always` it is a real bug: every restart replays the batch
holding the negative key, with exactly the same offsets, and dies again. The scenario shows it
from the checkpoint after each crash (same pending batch, same offsets, no new commit) while the
producer's backlog grows. Under `--supervise` the supervisor restarts it with backoff, sees the
checkpoint not moving, and gives up instead of looping forever. Then the code is "fixed"
(`--on-negative-key ignore`: the message is processed like any other, its value counted) and
restarted from the same checkpoint: it gets past the poison pill, and every value, the poisoned
one included, is in the output exactly once.

Usage: `python -m scenarios run poison-pill --fast`
"""

from __future__ import annotations

from dataclasses import dataclass

from scenarios.catalog import steps
from scenarios.checker.expectations import check, counted_once, equals, value_at_offset
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import committed_batches, read_checkpoint
from spark_app.offsets import Offsets, offsets_to_text
from spark_app.query.negative_key import CRASH, crash_line_in
from spark_app.supervisor import GIVE_UP, SAY_PREFIX, GiveUpLine, supervisor_lines

__all__ = ["SCENARIO", "StuckBatch", "run"]

CRASH_EXIT_CODE = 255  # what the seed's Runtime.getRuntime.halt(-1) looks like to a shell
GIVE_UP_AFTER = 2  # the supervisor's crashes in a row at the same checkpoint before it stops


@dataclass(frozen=True)
class StuckBatch:
    """The batch a crashed app will run again, as its checkpoint says, and what the log holds."""

    batch_id: int | None
    start: Offsets | None
    end: Offsets | None
    last_commit: int | None
    log_bytes: int
    highest_written: int | None

    def same_place(self, other: StuckBatch) -> bool:
        return (self.batch_id, self.start, self.end, self.last_commit) == (
            other.batch_id,
            other.start,
            other.end,
            other.last_commit,
        )

    def describe(self) -> str:
        if self.batch_id is None or self.end is None:
            return "no pending batch"
        return (
            f"batch {self.batch_id} pending, offsets {offsets_to_text(self.start or {})} -> "
            f"{offsets_to_text(self.end)}, last commit {self.last_commit}"
        )

    def holds_offset(self, offset: int) -> bool:
        if self.end is None:
            return False
        return any((self.start or {}).get(tp, 0) <= offset < end for tp, end in self.end.items())


def _stuck_batch(stage: Stage) -> StuckBatch:
    info = read_checkpoint(stage.folders.checkpoints)
    log = stage.folders.output_log
    return StuckBatch(
        info.pending_id,
        info.pending_start,
        info.pending.end if info.pending else None,
        info.last_committed_id,
        log.stat().st_size if log.exists() else 0,
        stage.output.verify().highest,
    )


def run(stage: Stage) -> None:
    restarts = 2 if stage.settings.fast else 3
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer; endless retention, so nothing here is about Kafka "
            "deleting data",
            why="the messages wait in Kafka; what goes wrong happens in the app",
            production="alert on consumer lag: a crash-looping job shows as lag that only grows",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the "
            "next one, so the poison pill will sit at its value minus one.",
            giveaway=("offset v-1",),
            checks=("value v sits at offset v-1",),
        )
    ):
        stage.kafka.start()
        # Three messages at least, so that the check reads more than the first one.
        stage.kafka.wait_for_latest(3, "three messages in the topic")
        stage.expect(value_at_offset(stage.kafka.values_in_topic()))

    with stage.step(
        steps.first_start(
            title="Start the Spark app with a bug: it crashes on every negative key",
            happens="python -m spark_app --on-negative-key crash-always, on a new checkpoint",
            watch="the app's batch lines below: `batch N: Experience-0 [from, until) rows=… "
            "count=…`, one per batch",
            why="a poison pill is data the code cannot handle; it is harmless until it arrives",
            question="Before any negative key arrives, will anything look wrong?",
            answer="No: every value is written once with its count, as usual; the bug waits for "
            "the bad record.",
            production="test the job on malformed input (negative, null, oversized) before it "
            "meets it in production",
            giveaway=("as usual", "waits for the bad record"),
            checks=("the app counts as usual before the poison pill",),
        )
    ):
        stage.app.start(on_negative_key="crash-always")
        report = stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.expect(counted_once("the app counts as usual before the poison pill", report))

    with stage.step(
        steps.negative_key(
            happens="one message with a negative key (its value stays positive); the app runs "
            "the crash-always code",
            watch="the app's lines below: its batch lines, and its last line if it stops",
            why="with crash-always the bug is in the code, not in the moment: the same record meets "
            "the same code on every replay",
            production="validate input at the edge; route records you cannot handle to a "
            "dead-letter topic instead of throwing",
            question="Where will the app stop, and will the poison pill be in the output?",
            answer=f"It exits {CRASH_EXIT_CODE} on `Negative key -v`, in the middle of a batch: the "
            "pending batch holds the pill's offset, and the pill is not in the output.",
            giveaway=("pending batch holds", "not in the output"),
            checks=(
                "the app crashed on the poison pill",
                "the pending batch holds the poison pill",
                "the poison pill is not in the output",
            ),
        )
    ):
        value = stage.fact("poison_value", stage.kafka.send_negative_key())
        stage.say(f"the producer sent key -{value} with value {value} at offset {value - 1}")
        first = _crash(stage, value, "first_crash")
        stage.expect(
            check(
                "the pending batch holds the poison pill",
                first.holds_offset(value - 1),
                f"offset {value - 1} (value {value}) inside the pending range",
                first.describe(),
            )
        )
        stage.expect(
            check(
                "the poison pill is not in the output",
                (first.highest_written or 0) < value,
                f"highest value written below {value}",
                f"highest value {first.highest_written}",
            )
        )

    for number in range(1, restarts + 1):
        with stage.step(
            Step(
                f"Restart without changing the code ({number} of {restarts})",
                happens="the same command, the same code, on the same checkpoint; after the app "
                "exits, the scenario reads its checkpoint",
                watch="the app's lines below: its start, and how it ends; the producer's latest "
                "number going on",
                why="a restart runs the last uncommitted batch again with exactly the offsets in "
                "offsets/N; Spark has no way to skip a batch that fails, so it fails forever",
                production="a supervisor that restarts the job blindly turns this into a crash "
                "loop: alert when restarts keep failing at the same batch id",
                question="The restart replays the pending batch with the same code. After it "
                "exits, will the checkpoint and the output log be as after the first crash, or "
                "will something have moved?",
                answer="As after the first crash: it crashes on the same key, with the same "
                "pending batch and offsets, and the output log the same size (the half-written "
                "batch rolled back and written again).",
                giveaway=("same pending batch", "same size"),
                checks=(
                    "the app crashed on the poison pill",
                    "same pending batch, same offsets",
                    "the output log is the same as after the first crash",
                ),
            )
        ):
            _restart_and_crash(stage, value, first, number)
    stage.fact("crash_restarts", restarts)

    with stage.step(
        Step(
            f"Run it under a supervisor: python -m spark_app --supervise --give-up-after "
            f"{GIVE_UP_AFTER}",
            happens="the supervisor starts the app, restarts it after each crash, waiting 1 s, "
            "2 s, ... between tries, and reads the checkpoint after each one",
            watch="the app's lines below, and the supervisor's own lines between its tries",
            why="a crash that leaves the checkpoint where it was will happen again on the next "
            "restart; restarting forever only hides the bug and burns resources",
            production="spark-submit --supervise restarts a failed driver forever: alert on "
            "restarts at the same batch id, and cap them (this supervisor's rule)",
            question="--give-up-after counts crashes that leave the checkpoint where it was. Will "
            "the supervisor give up here, with which exit code, and where will the checkpoint be?",
            answer=f"It gives up: after {GIVE_UP_AFTER} crashes at the same pending batch it says "
            f"`giving up` with the batch and the last error, and exits {CRASH_EXIT_CODE}, the "
            "app's own code; the checkpoint has not moved.",
            giveaway=("it gives up", "has not moved"),
            checks=(
                "the supervisor gives up on the crash loop",
                "the checkpoint did not move under the supervisor",
            ),
        )
    ):
        _supervisor_gives_up(stage, first)

    with stage.step(
        Step(
            "Fix the code and restart from the same checkpoint",
            happens="python -m spark_app --on-negative-key ignore: a negative key is now an "
            "ordinary message, written and counted like the others",
            watch="the app's first batch line below: its batch number and its ranges [from, until)",
            why="code inside foreachBatch may change between restarts of the same checkpoint; "
            "offsets and state stay valid, so nothing is lost and nothing is redone twice",
            production="fix forward and keep the checkpoint: deleting it to get past a poison "
            "pill loses the state and skips or repeats data (see checkpoint-reset)",
            question="With the fixed code on the same checkpoint, which batch runs first, and "
            "with which offsets?",
            answer="The stuck batch, with its original offsets, and this time it commits; the "
            "backlog follows.",
            giveaway=("the stuck batch,", "original offsets"),
            checks=("the stuck batch is committed with its original offsets",),
        )
    ):
        _fixed_restart(stage, first)

    with stage.step(
        steps.finish(
            why="the fixed code counts the negative-key message (ignore means: do not crash), so "
            "the final count is every message sent",
            question="How many times will the poison pill's value be in the output at the end?",
            answer="Once, as `-v -> v`, and every other value once too.",
            production="after fixing forward, check the sink once more: the bad record's id "
            "exactly once",
            giveaway=("once, as",),
            checks=("exactly once", "the poison pill is written once"),
        )
    ):
        stage.finish_exactly_once()
        written = stage.output.negative_key_lines(value)
        stage.expect(
            equals(
                "the poison pill is written once",
                written,
                1,
                lambda n: f"{n} line(s) `-{value} -> {value}`",
            )
        )


def _restart_and_crash(stage: Stage, value: int, first: StuckBatch, number: int) -> None:
    """Restart with the same code: the crash leaves the checkpoint as it was."""
    lag_before = stage.kafka.window().latest
    stage.app.start(on_negative_key="crash-always")
    again = _crash(stage, value, f"restart_{number}")
    stage.say(
        f"Kafka's latest offset was {lag_before} at the restart and is "
        f"{stage.kafka.window().latest} now; the app has not moved past batch {again.batch_id}"
    )
    stage.expect(
        check(
            "same pending batch, same offsets",
            again.same_place(first),
            first.describe(),
            again.describe(),
        ),
    )
    stage.expect(
        check(
            "the output log is the same as after the first crash",
            again.log_bytes == first.log_bytes,
            f"{first.log_bytes} bytes (the half-written batch rolled back and written again)",
            f"{again.log_bytes} bytes",
        ),
    )


def _supervisor_gives_up(stage: Stage, first: StuckBatch) -> None:
    """The same bug under `--supervise`: restarts with backoff, then a stop, not a loop."""
    tries = GIVE_UP_AFTER
    stage.app.start(
        on_negative_key="crash-always", supervise=True, give_up_after=tries, max_backoff_sec=2.0
    )
    code = stage.app.wait_exit(kind="crash")
    gave_up = next(
        (line for line in supervisor_lines(stage.app.output()) if isinstance(line, GiveUpLine)),
        None,
    )
    said = f"{SAY_PREFIX}{GIVE_UP.text(gave_up)}" if gave_up else ""
    stage.say(said or "the supervisor did not say it gave up")
    stage.expect(
        check(
            "the supervisor gives up on the crash loop",
            code == CRASH_EXIT_CODE and gave_up is not None and gave_up.failures == tries,
            f"exit code {CRASH_EXIT_CODE}, `giving up: the app failed {tries} times in "
            f"a row without its checkpoint moving`",
            f"exit code {code}, {said or 'no such line'}",
        )
    )
    after = _stuck_batch(stage)
    stage.expect(
        check(
            "the checkpoint did not move under the supervisor",
            after.same_place(first),
            first.describe(),
            after.describe(),
        )
    )


def _crash(stage: Stage, value: int, fact: str) -> StuckBatch:
    """Wait for the app's crash on the poison pill; the checkpoint it left, recorded as `fact`."""
    code = stage.app.wait_exit(kind="crash")
    named = crash_line_in(stage.app.output())
    stage.expect(
        check(
            "the app crashed on the poison pill",
            code == CRASH_EXIT_CODE
            and named is not None
            and (named.key, named.value) == (f"-{value}", f"{value}"),
            f"exit code {CRASH_EXIT_CODE}, `Negative key -{value} (value {value})`",
            f"exit code {code}, " + (CRASH.text(named) if named else "no crash line"),
        ),
    )
    stuck = _stuck_batch(stage)
    stage.say(f"checkpoint after the crash: {stuck.describe()}")
    stage.fact(
        fact,
        {
            "batch": stuck.batch_id,
            "last_commit": stuck.last_commit,
            "log_bytes": stuck.log_bytes,
            "start": offsets_to_text(stuck.start or {}),
            "end": offsets_to_text(stuck.end or {}),
        },
    )
    return stuck


def _fixed_restart(stage: Stage, stuck: StuckBatch) -> None:
    """The fixed code on the same checkpoint: the stuck batch commits with its offsets."""
    stage.app.start(on_negative_key="ignore")
    stage.output.wait_for_value(stage.kafka.window().latest)
    done = {b.batch_id: b for b in committed_batches(stage.folders.checkpoints)}
    batch = done.get(stuck.batch_id) if stuck.batch_id is not None else None
    stage.expect(
        check(
            "the stuck batch is committed with its original offsets",
            batch is not None and batch.end == stuck.end,
            f"commits/{stuck.batch_id}, end {offsets_to_text(stuck.end or {})}",
            "no commit"
            if batch is None
            else f"commits/{batch.batch_id}, end {offsets_to_text(batch.end or {})}",
        )
    )


SCENARIO = Scenario(
    name="poison-pill",
    title="a record that always crashes the app: restarts loop at the same offset; fix forward",
    summary="With --on-negative-key crash-always a negative key crashes the app on every restart, "
    "at the same pending batch and offsets, and a supervisor (--supervise) gives up on "
    "the loop instead of restarting forever; restarting with the fixed code "
    "(--on-negative-key ignore) on the same checkpoint gets past it, exactly once.",
    origin="seed 001 crash",
    about="a record the Spark app's code cannot handle",
    run=run,
)
