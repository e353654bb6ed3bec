"""SPARK-53560: a Trigger.AvailableNow backfill stopped mid-run, partitions added, a restart.

The connector's AvailableNow fetches, once per run, the offsets to drain up to (its
"prefetch"), and checks every batch it plans against it: the same topic-partitions, no end
offset beyond. Before the fix it fetched them as the run started, in
`prepareForTriggerAvailableNow`, so a run that starts by replaying a batch planned before a
stop checked that old batch against a prefetch taken now: when partitions were added in
between, the two sets differ, the check fails the run, and every restart replays the same
batch and fails again (a crash loop). With the fix the prefetch is taken in `latestOffset`,
which a replayed batch does not call: the replay runs, then the backfill goes on with the new
partitions (read from offset 0) and stops by itself.

The exhibit uses a topic of its own rather than the museum's shared one: it must add
partitions, and the other exhibits (and anything run after them on the same Kafka) read a
topic of one partition that the steady producer keeps writing to; a fixed backlog written
once also makes the AvailableNow run's batches the same on every line. The backfill is
stopped mid-run by the app's own deliberate crash (a negative key, `--on-negative-key
crash-once`): deterministic, in the middle of a planned batch, and the replay after the
restart goes through that message normally.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53560 --fast`
"""

from __future__ import annotations

import time

from launch.waiting import wait_until
from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import (
    RESTART_WATCH,
    exhibit_step,
    say_prediction,
    verdict_name,
)
from scenarios.checker.expectations import check
from scenarios.engine.observers.kafka_probe import KafkaProbe
from scenarios.engine.stage import Stage, TopicRecord
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import PRESENT, RAN_ON, bug_named, error_classes_in, judge
from spark_app.lines.known_spark_bugs import PREFETCH_WORDS, replay_bug_in
from spark_app.offsets import Offsets, TopicPartition, offsets_to_text

__all__ = [
    "EXHIBIT",
    "STEP",
    "run",
    "BACKLOG",
    "CAP",
    "CRASH_AT",
    "GROWN",
    "ADDED",
    "outcome_in",
    "backlog_messages",
    "added_messages",
    "drained",
    "MISMATCH_WORDS",
]

BUG = bug_named("SPARK-53560")

BACKLOG = 60  # messages in the topic before the backfill starts, values 1..60
CAP = 10  # maxOffsetsPerTrigger: six batches for the backlog, so a stop falls mid-run
CRASH_AT = 25  # the value sent with a negative key: the app dies in batch 2 (values 21..30)
GROWN = 3  # partitions after the grow (from 1)
ADDED = 6  # messages written to the new partitions while the app is down

# The connector's words for the failed check: its SparkException carries no bracketed class
# (KafkaExceptions fills the message of the condition named in kafka-error-conditions.json and
# throws it bare). The app's line names the condition (spark_app/lines/known_spark_bugs.py);
# the words name it where a line does not.
MISMATCH_WORDS = PREFETCH_WORDS


STEP = exhibit_step(
    BUG,
    "an AvailableNow backfill stopped mid-run, partitions added, a restart",
    happens=f"a topic of its own (the run's topic name + `-spark-53560`) gets {BACKLOG} "
    f"messages in one partition; the app backfills it with Trigger.AvailableNow, {CAP} offsets "
    f"a batch, and dies in the third batch (value {CRASH_AT} has a negative key); the topic "
    f"grows to {GROWN} partitions, {ADDED} messages go to the new ones; the app starts again, "
    "AvailableNow as before",
    watch="the app's lines until it dies; the narration's line on the batch the crash left "
    f"planned (one partition) against the topic's {GROWN}; then " + RESTART_WATCH,
    why="AvailableNow checks each batch it plans against the offsets it fetched once for the "
    "run; a run that starts by replaying an older batch checks that batch too, and where the "
    "fetch happens decides whether the added partitions are in it",
    question="On the Spark line this run uses: will the restart stop (with which error, every "
    "time?) or replay the batch and drain the topic, new partitions included?",
    giveaway=(BUG.when_present,),
    checks=(f"{BUG.ticket}: the backfill stopped mid-run with a batch planned",),
)


def run(stage: Stage) -> None:
    topic = f"{stage.kafka.topic}-spark-53560"
    folder = stage.folders.checkpoints
    started = time.monotonic()
    options = {"topic": topic, "trigger": "available-now", "max_offsets_per_trigger": CAP}
    with stage.step(STEP):
        _create_topic(stage, topic)
        stage.app.start(**options)
        code = stage.app.wait_exit(timeout=_long(stage), kind="crash")
        pending = read_checkpoint(folder).pending
        stage.say(
            f"the backfill died with exit code {code}; planned, not committed: "
            + (
                f"batch {pending.batch_id} {offsets_to_text(pending.end or {})}"
                if pending
                else "nothing"
            )
        )
        stage.expect(
            check(
                f"{BUG.ticket}: the backfill stopped mid-run with a batch planned",
                pending is not None and code != 0,
                "a non-zero exit and an offsets/N without its commits/N",
                f"exit code {code}, pending batch {pending.batch_id if pending else None}",
            ),
        )
        if pending is None:
            stage.app.delete_checkpoint()
            return
        _grow(stage, topic)
        version = say_prediction(stage, BUG)
        outcome, detail = _restart(stage, pending.batch_id, options)
        stage.say(f"observed: {outcome} ({detail})")
        verdict = judge(BUG, version, outcome)
        stage.fact(
            BUG.ticket,
            {
                "spark": version,
                "outcome": outcome,
                "status": verdict.status,
                "pending_batch": pending.batch_id,
                "seconds": round(time.monotonic() - started, 1),
            },
        )
        stage.expect(check(verdict_name(BUG), verdict.held, verdict.expected, verdict.actual))
        if outcome == RAN_ON:
            _drained(stage, topic, options)
        elif verdict.status == PRESENT:
            _loop_and_way_out(stage, topic, pending.batch_id, options)
        stage.app.delete_checkpoint()


def _long(stage: Stage) -> float:
    """A whole AvailableNow run: a Spark start and a handful of batches."""
    return stage.timings.spark_start_timeout_sec * 3


def backlog_messages() -> list[tuple[int, int]]:
    """(key, value) of the backlog: the producer's shape, value v with key v, one key negative."""
    return [(-v if v == CRASH_AT else v, v) for v in range(1, BACKLOG + 1)]


def added_messages() -> list[tuple[int, int, int]]:
    """(partition, key, value) of the messages written to the new partitions, spread over them."""
    first = BACKLOG + 1
    return [(1 + i % (GROWN - 1), v, v) for i, v in enumerate(range(first, first + ADDED))]


def _create_topic(stage: Stage, topic: str) -> None:
    stage.kafka.add_topic(
        topic, [TopicRecord(str(value), str(key), 0) for key, value in backlog_messages()]
    )
    stage.say(
        f"{topic} has 1 partition and values 1..{BACKLOG}, value {CRASH_AT} with key "
        f"-{CRASH_AT}; nothing else writes to it"
    )


def _grow(stage: Stage, topic: str) -> None:
    stage.kafka.grow_topic(topic, GROWN)
    stage.kafka.write(
        topic,
        [
            TopicRecord(str(value), str(key), partition)
            for partition, key, value in added_messages()
        ],
    )
    stage.say(
        f"{topic} grew while the app was down; {ADDED} messages written to the new "
        f"partitions; its end offsets now {offsets_to_text(_ends(stage, topic))}"
    )


def _ends(stage: Stage, topic: str) -> Offsets:
    """The topic's end offset per partition now ({} while Kafka does not answer)."""
    with KafkaProbe(stage.kafka.bootstrap_servers, topic) as probe:
        window = probe.window()
    if window is None:
        return {}
    return {TopicPartition(topic, p): latest for p, (_, latest) in enumerate(window.per_partition)}


def outcome_in(output: str) -> str | None:
    """The restart's error class in the app's output: the table's, the connector's mismatch by
    its words, or any bracketed class; None when there is none."""
    classes = error_classes_in(output, (BUG.when_present,))
    if classes:
        return classes[0]
    return BUG.when_present if MISMATCH_WORDS in output else None


def _restart(stage: Stage, batch: int, options: dict[str, object]) -> tuple[str, str]:
    """Start again; the outcome once the app exits or the planned batch is committed."""
    folder = stage.folders.checkpoints
    stage.app.start(**options)

    def ended() -> str | None:
        if batch in read_checkpoint(folder).commit_ids:
            return "committed"
        return None if stage.app.running else "exited"

    how = wait_until(
        ended,
        timeout=stage.timings.spark_start_timeout_sec * 2,
        poll=0.5,
        what=f"the restart to commit batch {batch} or to exit",
        progress=stage.waiting,
    )
    if how == "committed":
        return RAN_ON, f"replayed and committed batch {batch}"
    code = stage.app.wait_exit(kind="crash")
    if batch in read_checkpoint(folder).commit_ids:  # committed just before it exited
        return RAN_ON, f"replayed and committed batch {batch}; then exited with code {code}"
    output = stage.app.output()
    found = outcome_in(output)
    line = stage.app.process.tail(1).strip()[:400]
    return found or f"exit code {code}, no error class", line


def drained(committed: Offsets, ends: Offsets) -> bool:
    """Whether the last committed batch reached every partition's end offset."""
    return bool(ends) and all(committed.get(tp) == end for tp, end in ends.items())


def _drained(stage: Stage, topic: str, options: dict[str, object]) -> None:
    """After the replay, the backfill goes on to the end of all partitions and stops by itself."""
    folder = stage.folders.checkpoints
    if stage.app.running:
        code = stage.app.wait_exit(timeout=_long(stage))
    else:
        code = stage.app.process.wait_exit(1)
    # Spark 4.1's connector fails the trigger that replays a batch, after its commit
    # (SPARK-55271, its own exhibit): start once more, as the app's line says.
    if code != 0 and replay_bug_in(stage.app.output()) is not None:
        stage.say(
            "the replay met SPARK-55271 (the 4.1 connector's metrics) after its commit: "
            "started once more, as the app's line says"
        )
        stage.app.start(**options)
        code = stage.app.wait_exit(timeout=_long(stage))
    info = read_checkpoint(folder)
    committed = (info.last_committed.end if info.last_committed else None) or {}
    ends = _ends(stage, topic)
    stage.fact(
        f"{BUG.ticket} drained",
        {
            "exit_code": code,
            "committed": offsets_to_text(committed),
            "topic_ends": offsets_to_text(ends),
        },
    )
    stage.expect(
        check(
            f"{BUG.ticket}: the backfill drains every partition, then stops",
            code == 0 and drained(committed, ends),
            f"exit code 0; committed {offsets_to_text(ends)}",
            f"exit code {code}; committed {offsets_to_text(committed)}",
        ),
    )


def _loop_and_way_out(stage: Stage, topic: str, batch: int, options: dict[str, object]) -> None:
    """The bug's line: the same restart fails again; one run with the processing-time trigger
    replays the batch (no prefetch to check it against) and reads the new partitions."""
    again, detail = _restart(stage, batch, options)
    stage.say(f"a second restart: {again} ({detail})")
    stage.expect(
        check(
            f"{BUG.ticket}: every restart fails alike (a crash loop)",
            again == BUG.when_present,
            BUG.when_present,
            again,
        ),
    )
    stage.say("the way out: one start with the processing-time trigger replays the batch")
    stage.app.start(topic=topic, max_offsets_per_trigger=CAP)
    folder = stage.folders.checkpoints
    ends = _ends(stage, topic)

    def caught_up() -> Offsets | None:
        info = read_checkpoint(folder)
        end = (info.last_committed.end if info.last_committed else None) or {}
        return end if batch in info.commit_ids and drained(end, ends) else None

    committed = stage.app.wait_while_up(
        caught_up, f"batch {batch} and every partition's end committed", timeout=_long(stage)
    )
    stage.app.stop()
    stage.expect(
        check(
            f"{BUG.ticket}: a processing-time run gets past the planned batch",
            drained(committed, ends),
            f"committed {offsets_to_text(ends)}",
            f"committed {offsets_to_text(committed)}",
        ),
    )


EXHIBIT = Exhibit(BUG, run)
