"""Read a checkpoint's state with Spark, then use it to move the job to transformWithState.

The old job is the playground's default: applyInPandasWithState on the HDFS store. Stopped,
its checkpoint is read with Spark's State Data Source (`python -m spark_app inspect
--state-batch N --json`): the count as batch N left it (`format("statestore")` with
`batchId`) and what each of the last batches changed (`readChangeFeed`), each held against
the app's batch lines and `offsets/N`. Then the job moves to transformWithState on RocksDB,
which cannot run on the old checkpoint: a new checkpoint, its count seeded from the old one
(`--initial-state-from`, transformWithState's `initialState`) and its Kafka start set to the
old checkpoint's last committed offsets (`--starting-offsets` JSON). Both come from the same
batch, so the count continues: the union of the two output logs holds every message once,
with counts that run on across the move. A restart of the new job does not seed again: its
checkpoint has committed batches, so the app does not read the old one.

Usage: `python -m scenarios run state-reader --fast`
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kafka_app.logs import LOG_FILE_NAME
from scenarios.catalog import steps
from scenarios.checker.expectations import check, exactly_once
from scenarios.checker.sent_record import read_producer_log, read_topic, union
from scenarios.checker.verify import VerifyReport, verify, verify_sent
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.inspect import report_in_output
from spark_app.checkpoint.reader import BatchOffsets, committed_batches
from spark_app.lines.batch_line import parse_batch_lines
from spark_app.offsets import describe_offsets, offsets_to_json

__all__ = [
    "SCENARIO",
    "run",
    "NEW_JOB",
    "feed_mismatches",
    "counts_by_batch",
    "output_mismatches",
    "pick_batch",
]

# The new job: transformWithState needs RocksDB; changelog checkpointing gives it a change feed.
NEW_JOB = {
    "counter": "transform-with-state",
    "state_store": "rocksdb",
    "changelog_checkpointing": True,
}
OLD_BATCHES = 8  # committed batches of the old job before the move: a change feed worth reading


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer; the topic keeps everything",
            why="the new job starts at the old one's offsets: Kafka must still hold them",
            question="Later a second job will start reading where the first one stopped: must "
            "Kafka still hold those messages then?",
            answer="Yes: the new job's first read is at the old job's last committed offsets, so "
            "retention must keep them until the move is done (here the topic keeps "
            "everything).",
            production="check retention against the time a migration takes before you stop the "
            "old job",
            giveaway=("retention must keep",),
            checks=(),
        )
    ):
        stage.kafka.start()
    with stage.step(
        steps.first_start(
            title="The old job: applyInPandasWithState on the HDFS store",
            happens=f"the app starts with its defaults on a new checkpoint, counts from earliest "
            f"and is stopped after {OLD_BATCHES + 1} batches",
            why="this is the job to move: its count lives in its checkpoint's state, in "
            "`state/0/0/<v>.delta` files only Spark can read",
            production="applyInPandasWithState's state schema can never change, and PySpark "
            "gives it no initial state; its successor transformWithState has both",
            question="The topic starts at offset 0: after batch N, what will the count be?",
            answer="offsets/N's end, the offset its batch read up to: every message below it has "
            "been counted once, and the output log's message with that count holds that value "
            "(checked for every batch).",
            giveaway=("offsets/n's end", "read up to"),
            checks=("the count after each batch is offsets/N's end",),
        )
    ):
        _old_job(stage)
    at = stage.fact(
        "read_batch", pick_batch(committed_batches(stage.folders.checkpoints)[-1].batch_id)
    )
    with stage.step(
        Step(
            f"Read the state as batch {at} left it, and the change feed",
            happens=f"python -m spark_app inspect --state-batch {at} --json: a batch query reads "
            '`format("state-metadata")`, `format("statestore")` with '
            f"`batchId={at}`, and `readChangeFeed` from a few batches back",
            watch="the inspect app's lines below while Spark starts and reads; then the "
            "narration's lines from its report: the operator, the count at that batch, and the "
            "change feed's rows, one per batch",
            why="the State Data Source replays the store's files (snapshot, then deltas) to the "
            "version a batch wrote; the change feed reads only the deltas, so it needs a store "
            "that writes them: HDFS, or RocksDB with changelog checkpointing",
            production="read state from a stopped query or a copy of its folder; the read is a "
            "batch job and starts Spark; `batchId` must not be older than the retained "
            "batches (minBatchesToRetain, 100)",
            question=f"What count will the State Data Source read at batch {at}, and what "
            "will the change feed hold?",
            answer=f"The count batch {at} left, offsets/{at}'s end, as the output log has it; "
            "one update per batch, each the count after it; the operator is "
            "applyInPandasWithState (all checked).",
            giveaway=("one update per batch", "each the count after it"),
            checks=(
                f"the state at batch {at} is its count in offsets and output",
                "the change feed holds each batch's count",
                "the operator is applyInPandasWithState",
            ),
        )
    ):
        feed = _read_state(stage, at)
    with stage.step(
        Step(
            "Move the job: transformWithState on a new checkpoint, seeded from the old one",
            happens="a new app (`tws`) starts with --counter transform-with-state --state-store "
            "rocksdb --changelog-checkpointing --initial-state-from <old checkpoint> "
            "--starting-offsets <the old checkpoint's last committed offsets, as JSON> on a "
            "checkpoint of its own",
            watch="the new app's first lines, `Initial state: …`, then its batch lines",
            why=f"the count after batch {feed['last']} ({feed['count']}) and "
            f"offsets/{feed['last']}'s end ({describe_offsets(feed['end'])}) describe the same "
            "moment: the first message the old job did not count is the first the new one "
            "reads, and it counts on from there. Spark hands the initial state to "
            "handleInitialState in the new query's batch 0",
            production="stop the old job first (two jobs on one topic would both count); take "
            "state and offsets from the same committed batch; keep the old checkpoint "
            "until the new job has committed, it is the way back",
            question="Which value, with which Count, will the new job write first?",
            answer="The next value after the old job's last, with its Count: it seeds the old "
            "count (`Initial state: count …`), and the two logs read as one (all checked).",
            giveaway=("the next value after", "seeds the old count"),
            checks=(
                "the old job's output ends where its state does",
                "the new job seeds the old count",
                "the count continues across the move",
            ),
        )
    ):
        new = _move(stage, feed)
    with stage.step(
        Step(
            "Restart the new job with the same command",
            happens="the `tws` app is stopped and started again, --initial-state-from still given",
            watch="the new app's first lines after the restart, `Initial state: …`, then its "
            "batch lines",
            why="Spark applies initialState only in a query's batch 0 (a restart with the same "
            "initialState is accepted and ignores it, found on 4.2.0), so the app reads the "
            "old checkpoint only until the new one has committed batch 0",
            production="the flag can stay in the job's command line; once the new job has "
            "committed, the old checkpoint is no longer read and can be archived",
            question="Restarted with --initial-state-from still given, will it seed the old count "
            "again and jump back?",
            answer="No: it says `Initial state: not read` and goes on from its own state, no "
            "value twice (checked); initialState applies only in batch 0.",
            giveaway=("not read", "only in batch 0"),
            checks=("the restart goes on from its own state",),
        )
    ):
        _restart_new(stage, new)
    with stage.step(
        steps.finish(
            title="Stop the producer, let the new job catch up, read both output logs as one",
            happens="the producer stops, the new job drains the topic and stops; the two output "
            "logs are read as one, the old job's first, and held against what the producer "
            "sent",
            why="the seed (count) and the start (offsets) came from the same committed batch",
            production="a downstream reader sees the two outputs as one stream only if the move "
            "is exact; check it the way this scenario does before deleting the old "
            "checkpoint",
            question="Read as one, will the two jobs' logs miss or double any message?",
            answer="None: every message once, Count = n on the n-th.",
            giveaway=("none:", "every message once"),
        )
    ):
        _finish(stage, new)
    with stage.step(
        Step(
            "Read the new checkpoint's state at batch 0",
            happens="inspect --state-batch 0 on the new checkpoint (stateVarName=count)",
            watch="the inspect app's lines below while Spark starts and reads; then the "
            "narration's lines from its report: the operator, the count at batch 0, and the "
            "change feed's rows for batch 0",
            why="handleInitialState wrote the old count into the value state before batch 0's "
            "rows were numbered; the store committed both as version 1, and its changelog "
            "keeps every write, not the batch's net change, so the feed shows both",
            production="the same read checks any migration before the old checkpoint is deleted",
            question="What will the new checkpoint's state hold at batch 0, and how many updates "
            "will the change feed show for it?",
            answer="The seed plus batch 0's rows, under transformWithStateInPandasExec; two "
            "updates: the seed, then the count (both checked).",
            giveaway=("seed plus", "two updates", "the seed, then"),
            checks=(
                "batch 0's state = seed + its rows",
                "the change feed shows the seed as batch 0's first write",
            ),
        )
    ):
        _read_new_state(stage, new, stage.facts["tws_first_batches"][0])


def _old_job(stage: Stage) -> None:
    """Run the old job until it has committed OLD_BATCHES batches, then stop it; hold each
    batch's count (offsets/N's end) against the output log."""
    stage.app.start()
    stage.output.wait_for_batches(OLD_BATCHES + 1)
    stage.app.stop()
    counts = counts_by_batch(committed_batches(stage.folders.checkpoints))
    in_output = output_mismatches(counts, stage.output.verify().values)
    stage.expect(
        check(
            "the count after each batch is offsets/N's end",
            counts and not in_output,
            "for every batch N, the output's message with Count = offsets/N's end holds that value",
            "; ".join(in_output[:2]) or f"{len(counts)} batches, each as expected",
        )
    )


def counts_by_batch(batches: Sequence[BatchOffsets]) -> dict[int, int]:
    """The count after each batch: the messages below offsets/N's end, summed over the
    partitions (the old job read the topic from offset 0, every message once)."""
    return {b.batch_id: b.end_total or 0 for b in batches}


def output_mismatches(counts: Mapping[int, int], values: Sequence[int]) -> list[str]:
    """Batches whose count is not where the output log has it: the message written with
    Count = c must be the c-th line and hold value c (the value at offset c - 1)."""
    return [
        f"batch {batch}: count {c}, output's {c}th message "
        f"{values[c - 1] if 0 < c <= len(values) else 'missing'}"
        for batch, c in sorted(counts.items())
        if c and not (c <= len(values) and values[c - 1] == c)
    ]


def pick_batch(last: int, window: int = 10) -> int:
    """A batch in the middle of the old job's run, inside the change feed's last `window`."""
    return max(last - window + 1, last // 2, 0)


def _read_state(stage: Stage, at: int) -> dict[str, Any]:
    """Read the stopped old job's state at batch `at` and its change feed with inspect; hold
    them against offsets/N and the output log. What the move needs: last batch, count, ends."""
    checkpoints = stage.folders.checkpoints
    batches = committed_batches(checkpoints)
    last = batches[-1].batch_id
    counts = counts_by_batch(batches)
    stage.fact("counts_by_offsets", counts)
    report = _inspect(stage, checkpoints, at)
    state = report.get("state_source") or {}
    stage.fact("state_report", state)
    for line in report.get("state_source_lines", []):
        stage.say(line)
    changes = _hold_state(stage, at, state, counts)
    return {
        "last": last,
        "count": changes[-1]["count"] if changes else None,
        "end": batches[-1].end or {},
        "ends": counts,
    }


def _hold_state(
    stage: Stage, at: int, state: Mapping[str, Any], counts: Mapping[int, int]
) -> list[dict[str, Any]]:
    """Hold the State Data Source's answers against offsets/N and the output log; the feed."""
    count = state.get("count")
    in_output = output_mismatches(counts, stage.output.verify().values)
    stage.expect(
        check(
            f"the state at batch {at} is its count in offsets and output",
            count is not None and count == counts.get(at) and not in_output,
            f"count {counts.get(at)} (offsets/{at}'s end), the output's "
            f"{counts.get(at)}th message value {counts.get(at)}",
            f"statestore batchId={at}: {count}; " + ("; ".join(in_output[:2]) or "output agrees"),
        ),
    )
    stage.expect(
        check(
            "the operator is applyInPandasWithState",
            state.get("operator") == "applyInPandasWithState",
            "state-metadata's operatorName",
            state.get("operator"),
        ),
    )
    changes = state.get("changes") or []
    problems = feed_mismatches(changes, counts)
    stage.expect(
        check(
            "the change feed holds each batch's count",
            changes and not problems,
            "one update per batch, its count offsets/N's end",
            "; ".join(problems[:3]) or f"{len(changes)} batches, each offsets/N's end",
        ),
    )
    return list(changes)


def feed_mismatches(changes: Sequence[Mapping[str, Any]], counts: Mapping[int, int]) -> list[str]:
    """Where the change feed (batch_id, change_type, count) disagrees with the counts by batch."""
    problems = []
    for change in changes:
        batch = change["batch_id"]
        if change["change_type"] != "update":
            problems.append(f"batch {batch}: {change['change_type']}")
        elif counts.get(batch) != change["count"]:
            problems.append(f"batch {batch}: feed {change['count']}, offsets {counts.get(batch)}")
    fed = [c["batch_id"] for c in changes]
    if fed != sorted(set(fed)):
        problems.append(f"batches out of order or twice: {fed}")
    return problems


def _inspect(stage: Stage, checkpoint: Path, batch: int) -> dict[str, Any]:
    """`python -m spark_app inspect` on a stopped checkpoint, as a user runs it; its JSON."""
    stage.timeline.event(f"inspect batch {batch}")
    code, output = stage.app.inspect(
        "--checkpoint-dir",
        str(checkpoint),
        "--log-dir",
        str(checkpoint.parent / "inspect-log"),
        "--state-batch",
        str(batch),
        "--json",
        name=f"inspect-{checkpoint.parent.name}-{batch}",
    )
    report = report_in_output(output)
    stage.expect(
        check(
            "inspect read the state",
            code == 0 and report is not None,
            "exit 0 and a JSON report",
            f"exit {code}: {output[-300:]!r}",
        ),
    )
    return report or {}


def _move(stage: Stage, feed: dict[str, Any]) -> AppPart:
    old = stage.output.verify()
    last, count, end = feed["last"], feed["count"], feed["end"]
    starting = json.dumps(offsets_to_json(end), separators=(",", ":"))
    stage.expect(
        check(
            "the old job's output ends where its state does",
            old.final_count == count == feed["ends"].get(last),
            f"final count = state after batch {last} = offsets/{last}'s end",
            f"output {old.final_count}, state {count}, offsets {feed['ends'].get(last)}",
        )
    )
    new = stage.app.beside("tws", narrated=False)
    stage.timeline.event("tws start (seeded)", "start")
    new.start(
        **NEW_JOB, initial_state_from=stage.folders.checkpoints.resolve(), starting_offsets=starting
    )
    first = stage.output.of(new).wait_for_value((count or 0) + 1)
    seed = next((ln for ln in new.output().splitlines() if ln.startswith("Initial state:")), "")
    stage.fact("seed_line", seed)
    stage.fact("seeded_count", count)
    stage.expect(
        check(
            "the new job seeds the old count",
            f"count {count} " in seed and f"after its batch {last} " in seed,
            f"Initial state: count {count} … after its batch {last}",
            seed or "no line",
        )
    )
    both = _both(stage, new)
    stage.expect(
        check(
            "the count continues across the move",
            first.lowest == (count or 0) + 1 and both.exactly_once and both.counts_consistent,
            f"first value {(count or 0) + 1}; the two logs read as one: each value "
            "once, Count = n on the n-th message",
            f"first value {first.lowest}; " + " ".join(both.summary_lines()[:2]),
        )
    )
    stage.output.of(new).wait_for_batches(3)
    stage.fact(
        "tws_first_batches",
        [
            {"batch_id": b.batch_id, "rows": b.rows, "count": b.count}
            for b in parse_batch_lines(new.output())[:3]
        ],
    )
    return new


def _restart_new(stage: Stage, new: AppPart) -> None:
    """Restart the new job with the same command: it must not seed again."""
    new.stop()
    before = stage.output.of(new).verify()
    new.start(
        **NEW_JOB,
        initial_state_from=stage.folders.checkpoints.resolve(),
        starting_offsets="earliest",
    )
    stage.output.of(new).wait_for_value((before.highest or 0) + 2)
    both = _both(stage, new)
    skipped = [ln for ln in new.output().splitlines() if ln.startswith("Initial state: not read")]
    stage.expect(
        check(
            "the restart goes on from its own state",
            skipped and both.exactly_once and both.counts_consistent,
            f"`Initial state: not read …`; counts after {before.final_count} go on, no value twice",
            f"not-read line {'printed' if skipped else 'missing'}; "
            + " ".join(both.summary_lines()[:2]),
        )
    )


def _finish(stage: Stage, new: AppPart) -> None:
    """Drain into the new job and hold both output logs, read as one, against what was sent."""
    total = stage.fact("messages_sent", stage.kafka.stop_producer().latest)
    stage.output.of(new).wait_for_value(total)
    new.stop()
    kafka = stage.kafka
    sent = union(
        read_producer_log(stage.folders.log / LOG_FILE_NAME, kafka.topic),
        read_topic(kafka.bootstrap_servers, kafka.topic),
    )
    stage.expect(exactly_once(verify_sent(_both(stage, new), sent), total))


def _read_new_state(stage: Stage, new: AppPart, first: Mapping[str, Any]) -> None:
    """Read the new checkpoint at batch 0: the seed and batch 0's rows, as the feed shows."""
    report = _inspect(stage, new.folders.checkpoints, 0)
    state = report.get("state_source") or {}
    for line in report.get("state_source_lines", []):
        stage.say(line)
    stage.fact("tws_state_report", state)
    expected = (stage.facts.get("seeded_count") or 0) + int(first["rows"])
    stage.expect(
        check(
            "batch 0's state = seed + its rows",
            state.get("operator") == "transformWithStateInPandasExec"
            and state.get("count") == expected == first["count"],
            f"transformWithStateInPandasExec, count {expected}",
            f"{state.get('operator')}, count {state.get('count')}",
        )
    )
    first_feed = [c["count"] for c in state.get("changes") or [] if c["batch_id"] == 0]
    seeded = stage.facts.get("seeded_count")
    stage.expect(
        check(
            "the change feed shows the seed as batch 0's first write",
            first_feed == [seeded, expected],
            f"batch 0: update {seeded}, then update {expected}",
            f"batch 0's updates: {first_feed}",
        )
    )


def _both(stage: Stage, new: AppPart) -> VerifyReport:
    """The two output logs read as one, the old job's first: what a reader of both sees."""
    return verify([*_lines(stage.folders.output_log), *_lines(new.folders.output_log)])


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


SCENARIO = Scenario(
    name="state-reader",
    title="read state at batch N and its change feed; move to transformWithState, seeded",
    summary="The State Data Source reads the old applyInPandasWithState job's count at batch N "
    "and its change feed, checked against the app's batch lines; then the job moves to "
    "transformWithState on a new checkpoint, seeded with initialState and started at "
    "the old offsets: every message once across the move.",
    origin="Spark 4's State Data Source and transformWithState",
    about="reading a stopped job's state with Spark, and moving the job to transformWithState "
    "on a new checkpoint without losing its count",
    run=run,
)
