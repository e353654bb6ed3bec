"""Spark upgrade: a checkpoint written by one Spark, resumed by the next, then rolled back.

The question people face at a Spark upgrade is "will my checkpoint from the old Spark resume on
the new one, and can I go back?". This scenario answers it for two real PySpark versions:

1. Spark A (default: the oldest supported line) counts for a while, then crashes on a negative
   key in the middle of a batch: the checkpoint holds state and a pending batch (offsets/N
   without commits/N);
2. Spark B (default: the project's own) starts on that checkpoint: it replays A's pending batch
   and the count continues, every message once;
3. B is stopped, and A is started on B's checkpoint (the rollback). Before it starts, the
   scenario predicts what A will do from what B left in the checkpoint: a log version A cannot
   read (HDFSMetadataLog.validateVersion refuses any `vN` above its own) or a stored state
   schema that A's schema check refuses (StateSchemaCompatibilityChecker: a column stored as
   not nullable that A's query declares nullable) means A refuses; otherwise it resumes. Spark
   writes the schema file only when there is none, so B leaves A's file in place. What A really
   does is checked against that prediction.

Each Spark runs in its own environment (scenarios/engine/spark_envs.py, made on first use).

With a user's query (`--query FILE.py`) both Sparks run the module (the same file, each on its
own PySpark) and the crash is the one on a record, before the query: A leaves a pending batch
all the same. B must commit that batch; the rollback is judged by whether A commits a new batch
or refuses; at the end the oracle, on the project's own Spark, judges the rows all three starts
wrote against the query over every record up to the checkpoint's last commit.

Usage: `python -m scenarios run spark-upgrade --fast [--from 4.1.1] [--to 4.2.0]`
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

from launch.process import ManagedProcess
from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import check, counted_once, rows_until_last_commit
from scenarios.engine.scenario import Scenario, ScenarioOption
from scenarios.engine.spark_envs import SERVED_LINES, locked_spark_version, spark_python
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint, read_log_file
from spark_app.errors import error_in_text

__all__ = ["SCENARIO", "run", "CheckpointFormats", "predict_rollback"]

# The oldest line's newest release whose Kafka connector Maven Central serves (SERVED_LINES).
OLDEST_LINE_DEFAULT = SERVED_LINES[0]
_LOGS = ("offsets", "commits", "state/0/_metadata")


@dataclass(frozen=True)
class CheckpointFormats:
    """What a Spark version left in a checkpoint that a reader of another version must accept:
    the version line of each metadata log, and the state schemas stored for the operator."""

    log_versions: dict[str, str]
    state_schemas: tuple[str, ...]

    @classmethod
    def read(cls, checkpoint: Path) -> CheckpointFormats:
        versions = {}
        for log in _LOGS:
            files = sorted((checkpoint / log).glob("[0-9]*")) + sorted(
                (checkpoint / log).glob("metadata")
            )
            if files:
                versions[log] = max((read_log_file(f)[0] for f in files), key=lambda v: int(v[1:]))
        schema = checkpoint / "state" / "0" / "0" / "_metadata" / "schema"
        return cls(versions, _schema_v2(schema.read_bytes()) if schema.is_file() else ())


def _schema_v2(data: bytes) -> tuple[str, ...]:
    """The key and value schemas (JSON) of a state schema file of format v2: the version as a
    Java writeUTF, then per schema a chunk count and that many writeUTF chunks."""

    def utf(at: int) -> tuple[str, int]:
        size = struct.unpack_from(">H", data, at)[0]
        return data[at + 2 : at + 2 + size].decode("utf-8"), at + 2 + size

    version, at = utf(0)
    if version != "v2":
        return ()  # another layout: compared as unknown, so no prediction rests on it
    schemas = []
    while at + 4 <= len(data):
        chunks, at = struct.unpack_from(">i", data, at)[0], at + 4
        parts = []
        for _ in range(chunks):
            part, at = utf(at)
            parts.append(part)
        schemas.append("".join(parts))
    return tuple(schemas)


def _nullable_fields(schema_json: str) -> dict[str, bool]:
    return {f["name"]: f["nullable"] for f in json.loads(schema_json)["fields"]}


def predict_rollback(a_wrote: CheckpointFormats, b_left: CheckpointFormats) -> tuple[bool, str]:
    """Will Spark A resume on the checkpoint B left? (True/False, and why)."""
    newer = [
        f"{log} {v} (A writes {a_wrote.log_versions.get(log, 'none')})"
        for log, v in b_left.log_versions.items()
        if int(v[1:]) > int(a_wrote.log_versions.get(log, v)[1:])
    ]
    if newer:
        return False, "B wrote a log version A does not read: " + ", ".join(newer)
    # A declares what it wrote itself; the check compares that with the schema file B left.
    for declared, stored in zip(a_wrote.state_schemas, b_left.state_schemas):
        narrowed = [
            name
            for name, nullable in _nullable_fields(stored).items()
            if not nullable and _nullable_fields(declared).get(name, False)
        ]
        if narrowed:
            return False, (
                f"the stored state schema has {', '.join(narrowed)} not nullable, A "
                f"declares it nullable: Spark's schema check refuses a column stored "
                f"not nullable that the query declares nullable"
            )
    return True, "every log version and state schema B left is one A writes itself"


def run(stage: Stage, **versions: str) -> None:
    old = versions.get("from") or OLDEST_LINE_DEFAULT
    new = versions.get("to") or locked_spark_version()
    python_a, python_b = spark_python(old, stage.say), spark_python(new, stage.say)
    stage.fact("spark_from", old)
    stage.fact("spark_to", new)
    with stage.step(
        steps.start_kafka(
            title=f"Start Kafka, and the counter on Spark {old} (A)",
            happens="the broker and the producer; the app runs on PySpark "
            f"{old} in its own environment",
            watch="the producer's lines, then the app's batch lines below, from Spark A",
            why="a checkpoint holds data (offsets, state, the state's schema), not code: which "
            "Spark reads it later is a separate question from which Spark wrote it",
            production="note the Spark version in the job's deploy record: it is part of what a "
            "checkpoint needs to be read back",
            question="Does a checkpoint record which Spark version wrote it?",
            answer="Not as such: it holds data (offsets, state, the state's schema) and each log "
            "file's format version on its first line, not the Spark that wrote it.",
            giveaway=("not as such", "format version"),
            checks=(),
        )
    ):
        stage.kafka.start()
        stage.app.start(python=python_a)
        stage.output.wait_for_value(stage.timings.run_for_messages)
    value, pending, a_wrote = _crash_with_a_pending_batch(stage)
    b_left = _upgrade(stage, new, python_b, value, pending)
    _rollback(stage, old, python_a, a_wrote, b_left)
    with stage.step(
        steps.finish(
            title="Stop the producer, check the output log",
            happens="the producer stops; the output log is checked up to the highest value written",
            watch="the producer's lines stop; the app has stopped already, at the end of the "
            "rollback",
            question="Across Spark A, Spark B and the rollback, will any value be missing from "
            "the output log, or written twice?",
            answer="None: every value up to the highest written is there once, the counts "
            "consistent (checked).",
            why="both Sparks read the same checkpoint's offsets and state, and the exactly-once "
            "sink writes each batch once, whichever Spark runs it",
            giveaway=("none:", "there once"),
            checks=("nothing lost or doubled across A, B and the rollback",),
        )
    ):
        stage.fact("messages_sent", stage.kafka.stop_producer().latest)
        if stage.query is not None:
            _judge_up_to_the_commit(stage)
            return
        report = stage.output.verify()
        stage.expect(
            check(
                "nothing lost or doubled across A, B and the rollback",
                report.ok,
                "every value 1..highest written once, counts consistent",
                "; ".join(report.summary_lines()[1:]),
            ),
        )


def _crash_with_a_pending_batch(stage: Stage) -> tuple[int, int | None, CheckpointFormats]:
    """Spark A crashes on a negative key; the key's value, the batch A left pending and the
    formats A wrote."""
    with stage.step(
        steps.negative_key(
            why="an upgrade rarely starts from a clean stop: the old job crashed, or was killed "
            "by the deploy",
            production="the new version must be able to finish what the old one left half done",
            question="What will the crash leave in the checkpoint for the next Spark?",
            answer="A pending batch: offsets/N without commits/N, after exit 255 (checked).",
            giveaway=("pending batch", "without commits"),
            checks=("Spark A left a pending batch",),
        )
    ):
        value = stage.fact("negative_key_value", stage.kafka.send_negative_key())
        code = stage.app.wait_exit(kind="crash")
        info = read_checkpoint(stage.folders.checkpoints)
        pending = info.pending_id
        stage.expect(
            check(
                "Spark A left a pending batch",
                code == 255 and pending is not None,
                "exit 255, offsets/N without commits/N",
                f"exit {code}, pending batch {pending}",
            )
        )
        a_wrote = stage.fact(
            "formats_written_by_a", CheckpointFormats.read(stage.folders.checkpoints)
        )
    return value, pending, a_wrote


def _upgrade(
    stage: Stage, new: str, python_b: str, value: int, pending: int | None
) -> CheckpointFormats:
    """Spark B on A's checkpoint; the formats B left."""
    with stage.step(
        Step(
            f"Start Spark {new} (B) on A's checkpoint",
            happens=f"the app starts again on the same checkpoint, now on PySpark {new} in its "
            "own environment; after a few batches it is stopped",
            watch="the app's batch lines below, now from Spark B: the offset its first batch "
            "starts from and its count=; then its stop",
            why="Spark reads checkpoints written by earlier versions: the log files say their "
            "version on their first line, and the state store's files and schema are read with "
            "the same checks as after any restart",
            production="upgrade in place is supported forward; still copy the checkpoint folder "
            "before the first start on the new version (your way back)",
            question=f"Will Spark {new} finish the batch Spark A left, and how many times will "
            "the negative-key message be written?",
            answer="Yes: B replays A's pending batch and writes it once, counts on exactly once, "
            "and stops cleanly with exit 0 (all checked).",
            giveaway=("replays a's pending batch", "writes it once"),
            checks=(
                "B replayed A's pending batch once",
                "B counts on exactly once",
                "B stops cleanly",
            ),
        )
    ):
        stage.app.start(python=python_b)
        stage.output.wait_for_value(value + 2)
        if stage.query is None:
            _replayed_once(stage, value)
        else:  # how often its rows were written, the oracle says at the end
            commits = read_checkpoint(stage.folders.checkpoints).commit_ids
            stage.expect(
                check(
                    "B committed A's pending batch",
                    pending in commits,
                    f"commits/{pending}",
                    f"commits up to {commits[-1] if commits else 'none'}",
                )
            )
            stage.output.wait_for_more(3)
        code = stage.app.stop()
        stage.expect(check("B stops cleanly", code == 0, "exit code 0", f"exit code {code}"))
        return stage.fact("formats_left_by_b", CheckpointFormats.read(stage.folders.checkpoints))


def _replayed_once(stage: Stage, value: int) -> None:
    """The counter's output log: the negative key's line once, every value once since."""
    written = stage.output.negative_key_lines(value)
    stage.expect(
        check(
            "B replayed A's pending batch once",
            written == 1,
            f"one line `-{value} -> {value}`",
            f"{written} such line(s)",
        )
    )
    report = stage.output.wait_for_more(3)
    stage.expect(counted_once("B counts on exactly once", report))


def _rollback(
    stage: Stage, old: str, python_a: str, a_wrote: CheckpointFormats, b_left: CheckpointFormats
) -> None:
    resumes, why = predict_rollback(a_wrote, b_left)
    stage.fact("rollback_prediction", {"resumes": resumes, "why": why})
    with stage.step(
        Step(
            f"Roll back: Spark {old} (A) on the checkpoint B left",
            happens="A starts on the checkpoint B left; the scenario predicts from the "
            "checkpoint's log versions and state schemas whether A can read it",
            watch="the app's lines below, from Spark A again: its batch lines, or a last line "
            "naming Spark's reason",
            why="Spark promises to read older checkpoints, not newer ones: a newer Spark may write "
            "a log version or a state schema the older one refuses",
            production="keep the pre-upgrade copy of the checkpoint and roll back to it "
            "(replaying from its offsets), or run old and new side by side on separate "
            "checkpoints (blue/green, see the upgrade scenario) until the new one is trusted",
            question=f"Will Spark {old} start on the checkpoint Spark "
            f"{stage.facts['spark_to']} left, or refuse?",
            answer="As the checkpoint's formats predict (checked): here A "
            f"{'resumes' if resumes else 'refuses'} ({why}).",
            giveaway=("a resumes", "a refuses"),
            checks=("the rollback does what the checkpoint predicts",),
        )
    ):
        before = _progress(stage)
        process = stage.app.start(python=python_a)
        outcome = _rollback_outcome(stage, process, before)
        stage.expect(
            check(
                "the rollback does what the checkpoint predicts",
                outcome[0] == resumes,
                f"A {'resumes' if resumes else 'refuses'} ({why})",
                f"A {'resumed' if outcome[0] else 'refused'}: {outcome[1]}",
            ),
        )
        if outcome[0]:
            stage.app.stop()


def _progress(stage: Stage) -> int:
    """How far the app got: the messages in the output log, or with a query the messages its
    checkpoint committed (a query's rows name no message)."""
    if stage.query is None:
        return stage.output.verify().messages
    return stage.app.committed_offset() or 0


def _rollback_outcome(stage: Stage, process: ManagedProcess, before: int) -> tuple[bool, str]:
    """(resumed, what showed it): A either writes new messages (with a query: commits a new
    batch) or exits with an error line."""

    def seen() -> tuple[bool, str] | None:
        if _progress(stage) > before:
            return True, "it wrote new messages" if stage.query is None else "it committed a batch"
        if not process.running:
            error = error_in_text(process.output())
            return False, (
                f"{type(error).__name__}: {error}"[:400]
                if error
                else f"exit {process.returncode}: {process.tail(2)}"
            )
        return None

    return wait_until(
        seen,
        timeout=stage.timings.spark_start_timeout_sec,
        what="Spark A to resume or refuse",
        progress=stage.waiting,
    )


def _judge_up_to_the_commit(stage: Stage) -> None:
    """With a query: the oracle (on the run's own Spark) judges the rows A, B and the rollback
    wrote against the query over every record up to the checkpoint's last commit; the records
    sent after it were never read (the app stopped, or A refused), so they are left out."""
    verdict = stage.output.judge_query_until_last_commit()
    stage.expect(
        rows_until_last_commit("nothing lost or doubled across A, B and the rollback", verdict)
    )


SCENARIO = Scenario(
    name="spark-upgrade",
    title="a checkpoint from one Spark resumed by the next, then rolled back",
    summary="Spark A leaves state and a pending batch; Spark B resumes it exactly once; then A is "
    "started on B's checkpoint and does what the checkpoint's formats predict.",
    origin="seed 000's upgrades, across Spark versions",
    about="a Spark upgrade: will a checkpoint written by one Spark resume on the next, and can "
    "you go back?",
    run=run,
    takes="about 1.5 min: three Spark starts on two PySpark versions; on a machine's first run "
    "about a minute more, to build the other version's environment once",
    options=(
        ScenarioOption(
            "--from",
            str,
            f"the Spark that writes the checkpoint first (default {OLDEST_LINE_DEFAULT})",
            metavar="VERSION",
        ),
        ScenarioOption(
            "--to",
            str,
            "the Spark it is upgraded to (default: the project's own)",
            metavar="VERSION",
        ),
    ),
    # A checkpoint's formats across Spark lines are any stateful query's question.
    takes_query=True,
    with_query=(
        "your module on Spark A (the oldest served line) and B (the project's): the crash on "
        "a record leaves A's batch pending, B must commit it, A started again on B's "
        "checkpoint must commit or refuse as the checkpoint's formats predict; the oracle, on "
        "the project's line, over every record up to the last commit"
    ),
)
