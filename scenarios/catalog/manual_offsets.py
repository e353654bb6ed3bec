"""Manual offsets: seed 000 keeps Kafka offsets outside Spark, so a new checkpoint can carry on.

The Spark app runs with `--offsets-from-group GROUP`: before a batch's output is written, its
START offsets are committed to the Kafka consumer group GROUP (on Spark's connector, the default
stack, inside foreachBatch as the batch runs: spark_app/query/connector_group.py; on our Python source
when the batch is planned: spark_app/query/group_offsets.py). The app is killed with -9,
its checkpoint deleted, and a new query started with the same group: it resumes from the
committed offsets. Nothing is missing; the batch that was in flight is written again, which is
the expected price of at-least-once, predicted from the group's offset and counted. A graceful
stop costs the same (the last batch is redone), and a code change that needs a new checkpoint
(`--shuffle-partitions 2`) carries on the same way. The running count lives in the checkpoint's
state store, so it restarts with every fresh checkpoint: offsets outside Spark means state
outside Spark too.

Usage: `python -m scenarios run manual-offsets --fast`
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scenarios.checker.expectations import (
    check,
    count_resets_at,
    duplicated_exactly,
    missing_exactly,
    outcome_of_runs,
)
from scenarios.checker.verify import ValueRange
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint, read_offset_file
from spark_app.offsets import TopicPartition, describe_offsets
from spark_app.query.group_offsets import group_start_in

__all__ = ["SCENARIO", "Resume", "run"]

NEW_SHUFFLE_PARTITIONS = 2


@dataclass(frozen=True)
class Resume:
    """After the app went down: where the group says to resume, and what the log already holds."""

    committed: int  # the group's offset: the next message to read (value committed + 1)
    highest: int  # the highest value in the output log

    @property
    def replayed(self) -> ValueRange:
        """The values a new query from the group's offset writes a second time (may be empty)."""
        return ValueRange(self.committed + 1, self.highest)


def _group_name(stage: Stage) -> str:
    # The topic is unique per run on a shared Kafka, so the group is too.
    return f"spark-app-{stage.kafka.topic}"


def _partition(stage: Stage) -> TopicPartition:
    return TopicPartition(stage.kafka.topic, 0)


def _committed(stage: Stage) -> int | None:
    return stage.kafka.group_offset(_group_name(stage), _partition(stage))


def _last_batch_starts(checkpoint: Path, tp: TopicPartition) -> list[int]:
    """Where the last two batches Spark planned start: offsets/N-1's end is batch N's start."""
    info = read_checkpoint(checkpoint)
    starts: list[int] = []
    for batch in info.offset_ids[-2:]:
        offsets = (
            info.initial_offsets
            if batch == 0
            else read_offset_file(checkpoint / "offsets" / str(batch - 1)).end
        )
        if offsets and tp in offsets:
            starts.append(offsets[tp])
    return starts


def run(stage: Stage) -> None:
    stage.step(
        Step(
            "Start Kafka and the producer",
            happens=f"endless retention ({stage.timings.endless_retention_sec:g} s)",
            watch="the producer's latest offset keeps growing while the Spark app is down",
            why="the committed offsets are only useful while Kafka still holds the messages above them",
            question="While the Spark app is down, will Kafka's latest offset stop or keep growing?",
            answer="It keeps growing: the producer does not care about consumers; those messages wait "
            "above the group's offset.",
            production="alert on the consumer group's lag (latest minus committed) so a stopped job is "
            "noticed before retention catches up with it",
        )
    )
    stage.kafka.start()
    group = stage.fact("group", _group_name(stage))
    runs: list[ValueRange] = []

    stage.step(
        Step(
            f"Run 1: the Spark app keeps its offsets in consumer group {group}",
            happens=f"python -m spark_app --offsets-from-group {group}, on an empty checkpoint folder; "
            "the group has no offsets yet, so it starts from --starting-offsets (earliest)",
            watch="each batch's start offsets are committed to the group before its output is "
            "written: on Spark's connector (the default stack) inside foreachBatch as the batch "
            "runs, on our Python source (--offline) already when Spark plans it; the "
            "exactly-once sink is on, as by default",
            why="seed 000: store the beginning offsets (fromOffset) at the start of the batch, not the "
            "end: everything below them was written by an earlier batch, so nothing can be missed",
            production="any store works (Kafka's group offsets, a database row, ZooKeeper in 2016); "
            "write it before the batch's output, never after",
            question="Which offset will the group hold while the app runs: the end of the last batch, "
            "or its start?",
            answer="The start of the batch being run (checked after each stop: 'the group holds the "
            "start of the last planned batch'), so never above the highest value written.",
        )
    )
    stage.app.start(offsets_from_group=group)
    stage.output.wait_for_value(stage.timings.run_for_messages)
    _past_catch_up(stage)
    stage.say(
        f"while running: group {group} is at offset {_committed(stage)}, the output log at "
        f"value {stage.output.verify().highest}"
    )

    stage.step(
        Step(
            "Kill -9 the Spark app in the middle of the stream",
            happens="the driver and its JVM die at once, wherever they were",
            watch="the group's offset is the start of the last batch Spark ran or planned: at or below the "
            "highest value in the output log",
            why="the batch in flight may be half or fully written, but its start was stored first",
            question="After kill -9, will the group's offset be above or below the highest value in the "
            "output log?",
            answer="At or below it (checked): the group holds the start of the last batch (or of the "
            "one before, if killed between two batches), never ahead of the output.",
            production="a crash leaves at most one batch above the stored offset: that is the "
            "duplicates to budget for",
        )
    )
    stage.app.kill()
    killed = _went_down(stage, "after kill -9")
    runs.append(ValueRange(1, killed.highest))

    stage.step(
        Step(
            "Delete the checkpoint and restart with the same group",
            happens=f"a new query on an empty checkpoint with --offsets-from-group {group} "
            "--starting-offsets latest: the group's offsets win over latest",
            watch=f"the first value written is {killed.committed + 1}; values {killed.replayed} "
            f"appear a second time; Count restarts at 1",
            why="the new query starts at the stored start of the batch that was in flight, so it "
            "redoes that batch: at-least-once. The exactly-once sink cannot tell: it recognises a "
            "replay by the checkpoint's query id and batch id, and both are new. Compare "
            "checkpoint-reset: latest skips what was sent while down, earliest re-reads all "
            "Kafka retains; here only the last batch is repeated",
            production="make the output idempotent (keyed on a business id, or an upsert) so the "
            "repeated batch is harmless; count duplicates, do not hope for none",
            question="On an empty checkpoint with --starting-offsets latest, where will the new query "
            "begin, and what will Count show?",
            answer="At the group's offset, not at latest: the first value is the group's offset + 1 and "
            "the app says 'started from consumer group' (both checked); the batch in flight is "
            "written again and Count restarts at 1.",
        )
    )
    stage.app.delete_checkpoint()
    first = _restart(stage, killed, "after kill -9", group, starting_offsets="latest")
    _past_catch_up(stage)

    stage.step(
        Step(
            "Stop the Spark app gracefully (SIGTERM)",
            happens="this app's output gate lets the batch that began writing commit, then it calls "
            "query.stop() (which on its own would cancel that batch): its last batch is "
            "complete and committed",
            watch="the group still holds the START of that last batch",
            why="the start is stored when a batch runs (connector) or is planned (our source); the "
            "end of the last batch is known only to the checkpoint, so even a clean stop can cost "
            "one repeated batch on a new checkpoint (on our source none when Spark had "
            "planned a batch it did not run yet)",
            question="After a clean stop, will a new checkpoint from the group repeat any value?",
            answer="Usually one batch: the group still holds the START of the last batch (checked), so "
            "the values above it are written again; on our source none when Spark had "
            "planned a batch it did not run.",
            production="a graceful stop does not make offsets outside Spark exactly-once: to repeat "
            "nothing, store a batch's end offsets in the same transaction as its output (a "
            "database sink)",
        )
    )
    stage.app.stop()
    stopped = _went_down(stage, "after SIGTERM")
    runs.append(ValueRange(first, stopped.highest))

    stage.step(
        Step(
            f"A code change that needs a new checkpoint: --shuffle-partitions {NEW_SHUFFLE_PARTITIONS}",
            happens=f"the old checkpoint is deleted; the new version starts with --shuffle-partitions "
            f"{NEW_SHUFFLE_PARTITIONS} and the same group",
            watch=f"it starts at value {stopped.committed + 1}; its checkpoint records "
            f"spark.sql.shuffle.partitions = {NEW_SHUFFLE_PARTITIONS}",
            why="Spark pins the number of state partitions in the checkpoint: on the old checkpoint the "
            "new value would be ignored, and a changed state schema is refused outright (see "
            "upgrade). Offsets kept outside Spark let the new version start clean without "
            "skipping or re-reading everything",
            production="the count, kept in Spark's state, is not carried over: state you need across "
            "such a change must live outside Spark too (a table the job reads at start)",
            question="Where will the new version start, and which spark.sql.shuffle.partitions will its "
            "checkpoint record?",
            answer=f"At the group's offset + 1, and {NEW_SHUFFLE_PARTITIONS}: a new "
            "checkpoint takes the new setting (both checked); Count restarts at 1",
        )
    )
    stage.app.delete_checkpoint()
    third = _restart(
        stage, stopped, "after the code change", group, shuffle_partitions=NEW_SHUFFLE_PARTITIONS
    )
    pinned = read_checkpoint(stage.folders.checkpoints).conf.get("spark.sql.shuffle.partitions")
    stage.expect(
        check(
            "the new checkpoint uses the new setting",
            pinned == str(NEW_SHUFFLE_PARTITIONS),
            f"spark.sql.shuffle.partitions = {NEW_SHUFFLE_PARTITIONS}",
            f"spark.sql.shuffle.partitions = {pinned}",
        )
    )
    _finish(stage, runs, third, [first, third])


def _past_catch_up(stage: Stage) -> None:
    """Wait until the app has read the backlog and runs ordinary batches again.

    A new query's first batch reads everything sent while the app was down (and Spark starting).
    Stopped right after it, the "last batch" a new query redoes would be that whole backlog:
    true, but it hides that the usual cost is one ordinary batch, a trigger's worth of messages.
    """
    stage.output.wait_for_value(stage.kafka.window().latest)
    stage.output.wait_for_more(2)


def _went_down(stage: Stage, phase: str) -> Resume:
    """Read the group and the log after the app went down; check the group is not ahead of it."""
    committed = _committed(stage)
    report = stage.output.verify()
    highest = report.highest or 0
    starts = _last_batch_starts(stage.folders.checkpoints, _partition(stage))
    stage.expect(
        check(
            "the group holds the start of the last planned batch",
            committed is not None and committed in starts,
            f"one of {starts} (batch N, or N-1 if killed before N was planned)",
            committed,
        ),
    )
    stage.expect(
        check(
            "nothing above the group's offset is missing from the log",
            committed is not None and committed <= highest,
            f"offset <= highest value written ({highest})",
            committed,
        ),
    )
    resume = Resume(committed if committed is not None else 0, highest)
    stage.fact(
        phase.replace(" ", "_").replace("-", ""),
        {"committed": resume.committed, "highest": highest, "replayed": len(resume.replayed)},
    )
    stage.say(
        f"group {_group_name(stage)} is at offset {resume.committed}; the log reaches value "
        f"{highest}: a new query will write {len(resume.replayed)} value(s) again "
        f"({resume.replayed if len(resume.replayed) else 'none'})"
    )
    return resume


def _restart(stage: Stage, resume: Resume, phase: str, group: str, **options: object) -> int:
    """Start a new query with the group; check it begins at the group's offset."""
    first, _, _ = stage.start_app_and_see_first_value(offsets_from_group=group, **options)
    stage.expect(
        check(
            "the new query starts at the group's offset",
            first == resume.committed + 1,
            f"first value {resume.committed + 1}",
            f"first value {first}",
        ),
    )
    expected = {_partition(stage): resume.committed}
    said = group_start_in(stage.app.output(), group)
    stage.expect(
        check(
            "the app says where it started",
            said == expected,
            f"started from consumer group {group}: {describe_offsets(expected)}",
            describe_offsets(said) if said is not None else "no such line",
        ),
    )
    return first


def _finish(stage: Stage, runs: list[ValueRange], last_start: int, resets: list[int]) -> None:
    stage.step(
        Step(
            "Stop the producer, let the app catch up, check the output log",
            happens="the scenario predicts the log from the group's offsets and compares",
            watch="no value missing; the replayed batches written twice; Count restarting at the "
            "first value of each new checkpoint",
            why="at-least-once with offsets outside Spark: duplicates are the expected cost, bounded "
            "by one batch per restart",
            question="How many values will be missing at the end, and how many written twice?",
            answer="None missing; exactly the values each restart replayed from the group's offset "
            "written twice, as predicted, and Count restarting at each new checkpoint's first "
            "value (all checked).",
            production="after a restart from stored offsets, count the duplicates in your sink (rows "
            "against distinct ids)",
        )
    )
    total = stage.stop_producer_and_drain()
    stage.app.stop()
    report = stage.output.verify()
    missing, duplicated = outcome_of_runs([*runs, ValueRange(last_start, total)])
    stage.fact("duplicated_values", len(duplicated))
    stage.say(f"predicted: {len(duplicated)} value(s) written twice, none missing")
    stage.expect(missing_exactly(report, missing))
    stage.expect(duplicated_exactly(report, duplicated))
    stage.expect(count_resets_at(report, resets))


SCENARIO = Scenario(
    name="manual-offsets",
    title="offsets kept in a Kafka consumer group: a new checkpoint resumes there, at-least-once",
    summary="With --offsets-from-group the app commits each batch's start offsets to a consumer "
    "group; after kill -9, a graceful stop and a code change, each on a fresh checkpoint, "
    "the new query resumes from the group: nothing missing, the in-flight batch written "
    "again (counted), the count restarting with each new checkpoint.",
    origin="seed 000",
    run=run,
)
