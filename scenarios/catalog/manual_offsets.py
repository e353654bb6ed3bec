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

from scenarios.catalog import steps
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
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer, sending a counter; the topic keeps every "
            "message for the whole run",
            why="a group's offset is only a position in the topic: the messages above it must "
            "still be there when a new query reads from it",
            question="The app will keep its offsets in a Kafka consumer group. Does that group "
            "need Kafka to keep the messages above its offset?",
            answer="Yes: the group holds a position, not the messages; a new query reads from "
            "there only while Kafka still holds what lies above it.",
            production="alert on the consumer group's lag (latest minus committed) so a stopped "
            "job is noticed before retention catches up with it",
            giveaway=("not the messages",),
            checks=(),
        )
    ):
        stage.kafka.start()
    group = stage.fact("group", _group_name(stage))
    runs: list[ValueRange] = []

    with stage.step(
        steps.first_start(
            title=f"Run 1: the Spark app keeps its offsets in consumer group {group}",
            happens=f"python -m spark_app --offsets-from-group {group}, on an empty checkpoint "
            "folder; the group has no offsets yet, so it starts from --starting-offsets "
            "(earliest); the exactly-once sink is on, as by default",
            watch="the app's batch lines below, `batch N: Experience-0 [from, until) …`; then the "
            "narration's `while running: group … is at offset …` line",
            why="seed 000: store the beginning offsets (fromOffset) at the start of the batch, not "
            "the end: everything below them was written by an earlier batch, so nothing can be "
            "missed. On Spark's connector (the default stack) the app commits them inside "
            "foreachBatch as the batch runs, on our Python source (--offline) when Spark plans "
            "the batch; both before the batch's output",
            production="any store works (Kafka's group offsets, a database row, ZooKeeper in "
            "2016); write it before the batch's output, never after",
            question="Which offset will the group hold while the app runs: the end of the last "
            "batch, or its start?",
            answer="The start of the last batch Spark planned, the `from` of its batch line "
            "(checked), not its end.",
            giveaway=("fromoffset", "at the start of the batch", "start of the last"),
            checks=("the group holds the start of the last planned batch",),
        )
    ):
        stage.app.start(offsets_from_group=group)
        stage.output.wait_for_value(stage.timings.run_for_messages)
        _past_catch_up(stage)
        committed, highest = _group_against_log(stage, below_log=False)
        stage.say(
            f"while running: group {group} is at offset {committed}, the output log at value {highest}"
        )

    with stage.step(
        Step(
            "Kill -9 the Spark app in the middle of the stream",
            happens="the driver and its JVM die at once, wherever they were; then the group's "
            "offset and the output log are read",
            watch="the app's batch lines below stop mid-stream, with no last words; then the "
            "narration's `group … is at offset …; the log reaches value …` line",
            why="the batch in flight may be half or fully written, but its start was stored first",
            question="After kill -9, will the group's offset be above or below the highest value "
            "in the output log?",
            answer="At or below it (checked): the group holds the start of the last batch (or of "
            "the one before, if killed between two batches), never ahead of the output.",
            production="a crash leaves at most one batch above the stored offset: that is the "
            "duplicates to budget for",
            giveaway=("at or below", "never ahead", "never above"),
            checks=(
                "the group holds the start of the last planned batch",
                "nothing above the group's offset is missing from the log",
            ),
        )
    ):
        stage.app.kill()
        killed = _went_down(stage, "after kill -9")
        runs.append(ValueRange(1, killed.highest))

    with stage.step(
        Step(
            "Delete the checkpoint and restart with the same group",
            happens="the checkpoint folder is deleted; a new query starts on the empty folder with "
            f"--offsets-from-group {group} --starting-offsets latest",
            watch="the app's start line below, where it says it starts from, and its first batch "
            "line: the offset it reads from and its count=",
            why="the new query starts at the stored start of the batch that was in flight, so it "
            "redoes that batch: at-least-once. The exactly-once sink cannot tell: it recognises a "
            "replay by the checkpoint's query id and batch id, and both are new. Compare "
            "checkpoint-reset: latest skips what was sent while down, earliest re-reads all "
            "Kafka retains; here only the last batch is repeated",
            production="make the output idempotent (keyed on a business id, or an upsert) so the "
            "repeated batch is harmless; count duplicates, do not hope for none",
            question="On an empty checkpoint with --starting-offsets latest, where will the new "
            "query begin, and what will Count show?",
            answer="At the group's offset, not at latest: the first value is the group's offset "
            "+ 1, the app says it started from the consumer group's offsets, and Count starts "
            "again at 1 (all checked). What the log held above the group's offset is written "
            "again: the last step counts it.",
            giveaway=("not at latest", "win over latest", "again at 1", "restarts at 1"),
            checks=(
                "the new query starts at the group's offset",
                "the app says where it started",
                "the count starts again at 1",
            ),
        )
    ):
        stage.app.delete_checkpoint()
        first = _restart(stage, killed, group, starting_offsets="latest")
        _past_catch_up(stage)

    with stage.step(
        Step(
            "Stop the Spark app gracefully (SIGTERM)",
            happens="this app's output gate lets the batch that began writing commit, then it "
            "calls query.stop() (which on its own would cancel that batch) and exits; then the "
            "group's offset and the output log are read",
            watch="the app's last line below, `Stopped cleanly; …` or `Stopped; …`; then the "
            "narration's `group … is at offset …; the log reaches value …` line",
            why="the start is stored when a batch runs (connector) or is planned (our source); the "
            "end of the last batch is known only to the checkpoint, so even a clean stop can "
            "cost one repeated batch on a new checkpoint (on our source none when Spark had "
            "planned a batch it did not run yet)",
            question="After a clean stop, will a new checkpoint from the group repeat any value?",
            answer="Usually one batch: the group still holds the START of the last batch "
            "(checked), so the values above it are written again (the last step counts them); "
            "on our source none when Spark had planned a batch it did not run.",
            production="a graceful stop does not make offsets outside Spark exactly-once: to "
            "repeat nothing, store a batch's end offsets in the same transaction as its output "
            "(a database sink)",
            giveaway=("usually one batch", "still holds the start"),
            checks=(
                "the group holds the start of the last planned batch",
                "nothing above the group's offset is missing from the log",
            ),
        )
    ):
        stage.app.stop()
        stopped = _went_down(stage, "after SIGTERM")
        runs.append(ValueRange(first, stopped.highest))

    with stage.step(
        Step(
            "A code change that needs a new checkpoint: --shuffle-partitions "
            f"{NEW_SHUFFLE_PARTITIONS}",
            happens="the old checkpoint is deleted; the new version starts with "
            f"--shuffle-partitions {NEW_SHUFFLE_PARTITIONS} and the same group",
            watch="the new version of the app: its start line below, where it says it starts "
            "from, and its first batch lines",
            why="Spark pins the number of state partitions in the checkpoint: on the old "
            "checkpoint the new value would be ignored, and a changed state schema is refused "
            "outright (see upgrade). Offsets kept outside Spark let the new version start clean "
            "without skipping or re-reading everything",
            production="the count, kept in Spark's state, is not carried over: state you need "
            "across such a change must live outside Spark too (a table the job reads at start)",
            question="Where will the new version start, and which spark.sql.shuffle.partitions "
            "will its checkpoint record?",
            answer=f"At the group's offset + 1, and {NEW_SHUFFLE_PARTITIONS}: a new checkpoint "
            "takes the new setting; Count starts again at 1 (all checked).",
            giveaway=("takes the new setting",),
            checks=(
                "the new query starts at the group's offset",
                "the new checkpoint uses the new setting",
                "the count starts again at 1",
            ),
        )
    ):
        stage.app.delete_checkpoint()
        third = _restart(stage, stopped, group, shuffle_partitions=NEW_SHUFFLE_PARTITIONS)
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


def _group_against_log(stage: Stage, below_log: bool = True) -> tuple[int | None, int]:
    """Check the group holds a batch's start (and, with `below_log`, that it is not ahead of
    the output log); the group's offset and the highest value written.

    The group is read first, the checkpoint and the log right after: a batch Spark plans
    meanwhile moves the group to a start the checkpoint then holds too, and only after the batch
    before it was written, so a running app's offset cannot look wrong.
    """
    committed = _committed(stage)
    starts = _last_batch_starts(stage.folders.checkpoints, _partition(stage))
    highest = stage.output.verify().highest or 0
    stage.expect(
        check(
            "the group holds the start of the last planned batch",
            committed is not None and committed in starts,
            f"one of {starts} (batch N, or N-1 if killed before N was planned)",
            committed,
        ),
    )
    if below_log:
        stage.expect(
            check(
                "nothing above the group's offset is missing from the log",
                committed is not None and committed <= highest,
                f"offset <= highest value written ({highest})",
                committed,
            ),
        )
    return committed, highest


def _went_down(stage: Stage, when: str) -> Resume:
    """Read the group and the log after the app went down; check the group is not ahead of it.
    `when` names the fact that records them."""
    committed, highest = _group_against_log(stage)
    resume = Resume(committed if committed is not None else 0, highest)
    stage.fact(
        when.replace(" ", "_").replace("-", ""),
        {"committed": resume.committed, "highest": highest, "replayed": len(resume.replayed)},
    )
    stage.say(
        f"group {_group_name(stage)} is at offset {resume.committed}; the log reaches value "
        f"{highest}: a new query will write {len(resume.replayed)} value(s) again "
        f"({resume.replayed if len(resume.replayed) else 'none'})"
    )
    return resume


def _restart(stage: Stage, resume: Resume, group: str, **options: object) -> int:
    """Start a new query with the group; check it begins at the group's offset, with Count 1."""
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
    # The count lives in the checkpoint's state store: a new checkpoint counts from 1.
    resets = stage.output.verify().count_resets
    stage.expect(
        check(
            "the count starts again at 1",
            resets[-1:] == (first,),
            f"Count = 1 at value {first}",
            f"the count restarts at {list(resets)}",
        ),
    )
    return first


def _finish(stage: Stage, runs: list[ValueRange], last_start: int, resets: list[int]) -> None:
    with stage.step(
        steps.finish(
            happens="the producer stops; the app reads what is left and is stopped; the "
            "scenario predicts the log from the group's offsets and compares",
            why="at-least-once with offsets outside Spark: duplicates are the expected cost, "
            "bounded by one batch per restart",
            question="How many values will be missing at the end, and how many written twice?",
            answer="None missing; exactly the values each restart replayed from the group's "
            "offset written twice, as predicted, and Count restarting at each new checkpoint's "
            "first value (all checked).",
            production="after a restart from stored offsets, count the duplicates in your sink "
            "(rows against distinct ids)",
            giveaway=("none missing", "as predicted"),
            checks=("missing values", "duplicated values", "count resets"),
        )
    ):
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
    about="seed 000's offsets kept outside Spark, in a Kafka consumer group: where a new "
    "checkpoint starts after a crash, a clean stop and a code change, and what it costs",
    run=run,
)
