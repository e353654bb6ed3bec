"""The puzzle's faults: each breaks the job so that it will not restart on the default line.

Every fault starts the same way, the job run on a new checkpoint until it has committed a few
batches and stopped cleanly, and then breaks one thing, as production breaks it:

- `torn-offsets`: a power loss left the next batch's plan, offsets/N+1, cut short;
- `retention`: the job stayed down longer than retention, which deleted what it had not read;
- `state-schema`: the job's new release keeps another state schema than the checkpoint's;
- `metadata-deleted`: someone cleaned the folder of `metadata` (the query id), after a kill -9
  had left the last batch written but not committed;
- `fewer-partitions`: the topic was deleted and created again with one partition of three.

Each stops the restart with its own line (verified by tests/scenarios/puzzle/): the app's
CHECKPOINT_UNUSABLE.TORN_FILE, KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE,
CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED, Spark's STREAMING_CHECKPOINT_MISSING_METADATA_FILE
(Spark 4.2; before it the restart went on under a new query id), KAFKA_DATA_LOSS.PARTITIONS_DELETED.

Usage: `fault = FAULTS[0]; facts = fault.setup(stage)`
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from launch.waiting import wait_until
from scenarios.checker.verify import ValueRange
from scenarios.engine.stage import Stage
from scenarios.exercises.first_run import first_run, run_facts
from scenarios.puzzle.fault import Fault

__all__ = ["FAULTS"]

# How much of the torn plan reached the disk: enough to cut its JSON in the middle.
_TORN_KEEPS = 0.6
# Messages in the recreated topic before the puzzle is handed over.
_IN_NEW_TOPIC = 5


def _started(stage: Stage, partitions: int = 1) -> dict[str, Any]:
    stage.kafka.start(partitions=partitions)
    return first_run(stage)


def _torn_offsets(stage: Stage) -> dict[str, Any]:
    facts = _started(stage)
    plans = stage.folders.checkpoints / "offsets"
    plan = (plans / str(facts["last_batch"])).read_bytes()
    (plans / str(facts["last_batch"] + 1)).write_bytes(plan[: int(len(plan) * _TORN_KEEPS)])
    return facts


def _retention(stage: Stage) -> dict[str, Any]:
    facts = _started(stage)
    t = stage.timings
    stage.kafka.set_retention(t.retention_sec)
    stage.kafka.wait_until_aged_out(facts["processed"])
    stage.kafka.set_retention(t.endless_retention_sec)
    return {**facts, "earliest": stage.kafka.wait_until_earliest_settles().earliest}


def _aged_out(facts: Mapping[str, Any]) -> tuple[ValueRange, ...]:
    """Values of offsets [processed, earliest): value v sits at offset v-1."""
    return (ValueRange(facts["processed"] + 1, facts["earliest"]),)


def _metadata_deleted(stage: Stage) -> dict[str, Any]:
    facts = _started(stage)
    folder, last = stage.folders.checkpoints, facts["last_batch"]
    # A kill -9 after the last batch's output and before its commit, then `rm metadata` (and
    # its .crc, which a stale checksum would otherwise make Hadoop refuse a rewritten file on).
    for gone in (f"commits/{last}", f"commits/.{last}.crc", "metadata", ".metadata.crc"):
        (folder / gone).unlink(missing_ok=True)
    return facts


def _fewer_partitions(stage: Stage) -> dict[str, Any]:
    stage.kafka.start(partitions=3)
    stage.app.start()
    stage.output.wait_for_value(8)
    # Everything sent to the old topic is read before it goes, so that no repair has to
    # answer for messages deleted with it.
    stage.stop_producer_and_drain()
    stage.catch_up()
    stage.app.stop()
    facts = run_facts(stage)
    stage.kafka.recreate_topic(1)
    wait_until(
        lambda: stage.kafka.window().latest >= _IN_NEW_TOPIC or None,
        timeout=60,
        what=f"{_IN_NEW_TOPIC} messages in the new topic",
        progress=stage.waiting,
    )
    return {**facts, "first_new": facts["processed"] + 1}


FAULTS: tuple[Fault, ...] = (
    Fault(
        "torn-offsets",
        "a power loss left the next batch's plan, offsets/N+1, cut short",
        _torn_offsets,
        sees=(
            "the job: CHECKPOINT_UNUSABLE.TORN_FILE naming offsets/N+1 (a line that is not "
            "JSON, as if cut short) and the repair",
            "inspect: the same line; commits/N+1 does not exist: the plan of a batch that never ran",
        ),
        best=(
            "rm puzzle/checkpoints/offsets/N+1 puzzle/checkpoints/offsets/.N+1.crc  (if there)",
            "the job unchanged: Spark plans batch N+1 again and continues exactly once",
        ),
        wrong=(
            "deleting the checkpoint (or spark_app reset): the count starts over at 1; from "
            "earliest every value again (--check: a reset, values counted twice)",
        ),
    ),
    Fault(
        "retention",
        "the job stayed down longer than retention, which deleted offsets it had not read",
        _retention,
        sees=(
            "the job: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE, with the playground's "
            "[Kafka's earliest offset … is now E, so offsets [P, E) are gone]",
            "inspect: resumes at offset P but Kafka's earliest is E: a restart will FAIL",
        ),
        best=(
            "add --fail-on-data-loss false to job.sh's line: the job skips the gone offsets "
            "(spark.log names them), the count goes on",
            "then backfill the gone range from the source of record; raise retention",
        ),
        wrong=(
            "a reset (new checkpoint from earliest): the count starts over at 1 (--check: a "
            "reset, the count of the messages before lost)",
            "a reset from latest: also loses what came in meanwhile",
        ),
        unavoidable=_aged_out,
    ),
    Fault(
        "state-schema",
        "the job's new release keeps another state schema (--state-schema v2)",
        _started,
        sees=(
            "the job: CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED, naming the field added",
            "inspect: state schema (…), written with --state-schema v1; job.sh says v2",
        ),
        best=(
            "roll the release back: remove --state-schema v2 from job.sh's line; the job "
            "continues exactly once",
            "(v2 goes out later on a new checkpoint started from the offsets inspect prints)",
        ),
        wrong=(
            "deleting the checkpoint to run v2: the count starts over (--check: a reset, "
            "values counted twice from earliest or lost from latest)",
        ),
        job_options={"state_schema": "v2"},
    ),
    Fault(
        "metadata-deleted",
        "metadata (the query id) was deleted, after a kill -9 left the last batch uncommitted",
        _metadata_deleted,
        sees=(
            "the job: Spark's STREAMING_CHECKPOINT_MISSING_METADATA_FILE (Spark 4.2)",
            "inspect: query id: (metadata missing); a restart will fail; batch N planned and "
            "not committed",
            "the query id is still in puzzle/log/streaming-output.log.journal and spark.log "
            "(`id = …`)",
        ),
        best=(
            'printf \'{"id":"QUERY_ID"}\' > puzzle/checkpoints/metadata  with the old query '
            "id: the replayed batch N is skipped by the sink's journal, the job continues "
            "exactly once",
            # As run (29 Nov 2026, Spark 4.2.0): a new id passes here too, since this sink
            # skips a batch by its id alone; --check then names the id that changed.
            "a new id also continues here (this sink keys its journal on the batch id alone), "
            "and --check says the id changed: a sink keyed on the query id would write batch "
            "N again, so keep the old id",
        ),
        wrong=("deleting the checkpoint: the count starts over (--check: a reset)",),
    ),
    Fault(
        "fewer-partitions",
        "the topic was deleted and created again with 1 partition where the checkpoint knows 3",
        _fewer_partitions,
        sees=(
            "the job: KAFKA_DATA_LOSS.PARTITIONS_DELETED naming Experience-1 and Experience-2",
            "inspect: reads Experience partitions 0, 1, 2; Kafka's offsets of Experience-0 "
            "below the checkpoint's",
        ),
        best=(
            "a new checkpoint for the new stream, from its first message: "
            "uv run python -m spark_app reset --checkpoint-dir puzzle/checkpoints --log-dir "
            "puzzle/log, job.sh unchanged (startingOffsets earliest by default)",
            "the count starts over with the new topic, as it must: the old stream is gone",
        ),
        wrong=(
            "--fail-on-data-loss false: the job goes on, but the new topic's first messages "
            "are skipped (--check: values never counted)",
            "a new checkpoint from latest: the messages already in the new topic are never counted",
        ),
        new_stream=True,
    ),
)
