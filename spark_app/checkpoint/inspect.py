"""`python -m spark_app inspect`: a checkpoint folder explained in plain words.

It reads the folder with the pure reader (query id, last committed batch, the pending batch a
restart replays, the offsets it resumes from), asks Kafka whether those offsets still exist, and
reads the count held in state with Spark's state reader. The verdict predicts a failing restart
before it happens, e.g. "resumes at offset 120 of Experience-0 but Kafka's earliest is 300: a
restart will fail; 180 messages are gone".

With `--state-source` it also reads the state through Spark's State Data Source
(state_reader.py): the operator, the count, what each of the last batches changed, the store's
kind and format, and the files the next batch loads; in the same Spark start as the count.

Usage: `python -m spark_app inspect --checkpoint-dir checkpoints --bootstrap-servers 127.0.0.1:9092`
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spark_app.checkpoint.health import restart_blockers
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint
from spark_app.checkpoint.state_schema import schema_version, stored_state_fields
from spark_app.errors import KafkaUnreachableError, SparkAppError
from spark_app.offsets import Offsets, TopicPartition, describe_offsets, offsets_to_json
from spark_app.settings import SparkAppSettings
from spark_app.source.kafka_client import TopicClient

if TYPE_CHECKING:
    from spark_app.checkpoint.state_data_source import StateReport

__all__ = [
    "PartitionVerdict",
    "InspectReport",
    "inspect_checkpoint",
    "partition_verdicts",
    "read_state_count",
    "render_text",
    "run_inspect",
    "report_in_output",
]


@dataclass(frozen=True)
class PartitionVerdict:
    """Where one partition resumes, compared with what Kafka holds."""

    partition: str
    resume_at: int
    earliest: int | None
    latest: int | None
    # The end of the batch a restart runs first: a pending batch's end from offsets/N, else
    # Kafka's latest offset now (what Spark will write to offsets/N).
    batch_end: int | None = None

    @property
    def lost(self) -> int:
        return max(0, self.earliest - self.resume_at) if self.earliest is not None else 0

    @property
    def waiting(self) -> int | None:
        return max(0, self.latest - self.resume_at) if self.latest is not None else None

    def sentence(self) -> str:
        if self.earliest is None or self.latest is None:
            return f"resumes at offset {self.resume_at} of {self.partition} (Kafka not asked)"
        if self.lost:
            end = self.batch_end if self.batch_end is not None else self.latest
            return (
                f"resumes at offset {self.resume_at} of {self.partition} but Kafka's earliest "
                f"is {self.earliest}: a restart will fail; {self.lost} messages are gone. "
                f"Spark plans the batch (writes offsets/N), then its read fails with "
                f"KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE for [{self.resume_at}, {end}) "
                f"(restart with --fail-on-data-loss false to skip them, or delete the "
                f"checkpoint to start over)"
            )
        if self.resume_at > self.latest:
            return (
                f"resumes at offset {self.resume_at} of {self.partition} but Kafka's latest "
                f"is {self.latest}: the topic was probably recreated; a restart will fail "
                f"when Spark plans the batch, with KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED "
                f"(from {self.resume_at} to {self.latest}); with --fail-on-data-loss false "
                f"it warns and moves back to the new topic's offsets"
            )
        return (
            f"resumes at offset {self.resume_at} of {self.partition}; Kafka holds "
            f"[{self.earliest}, {self.latest}): {self.waiting} messages waiting, none lost"
        )


@dataclass(frozen=True)
class InspectReport:
    """Everything `inspect` found; rendered as text or JSON."""

    checkpoint: str
    exists: bool
    query_id: str | None = None
    last_committed_batch: int | None = None
    pending_batch: int | None = None
    pending_range_end: dict[str, dict[str, int]] | None = None
    resume_from: dict[str, dict[str, int]] | None = None
    state_count: int | None = None
    state_note: str | None = None
    kafka: str | None = None
    kafka_note: str | None = None
    partitions: list[PartitionVerdict] = field(default_factory=list)
    # The count's state fields as stored, and the --state-schema that wrote them.
    state_fields: list[str] | None = None
    state_schema: str | None = None
    # Files Spark needs and will not find: each one fails the restart whatever Kafka holds.
    blockers: list[str] = field(default_factory=list)
    # `--state-source`: the State Data Source's answers (state_reader.StateReport.to_json()).
    state_source: dict[str, object] | None = None
    state_source_lines: list[str] = field(default_factory=list)
    # Settings the checkpoint pins (from the latest offsets/N's conf): a restart keeps these
    # whatever it is started with (query-changes shows shuffle partitions ignored).
    kept: dict[str, str] = field(default_factory=dict)

    @property
    def restart_will_fail(self) -> bool | None:
        """None when Kafka was not asked or did not answer (and no file is missing): then
        nobody can tell."""
        if self.blockers:
            return True
        if self.kafka_note is not None or any(v.latest is None for v in self.partitions):
            return None
        return any(v.lost or v.resume_at > v.latest for v in self.partitions)

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["partitions"] = [
            dict(asdict(v), lost=v.lost, waiting=v.waiting, sentence=v.sentence())
            for v in self.partitions
        ]
        data["restart_will_fail"] = self.restart_will_fail
        return data


def partition_verdicts(
    resume: Offsets,
    earliest: Offsets | None,
    latest: Offsets | None,
    planned_end: Offsets | None = None,
) -> list[PartitionVerdict]:
    ends = planned_end if planned_end else (latest or {})
    return [
        PartitionVerdict(
            str(tp),
            resume[tp],
            earliest.get(tp) if earliest is not None else None,
            latest.get(tp) if latest is not None else None,
            ends.get(tp),
        )
        for tp in sorted(resume)
    ]


def _kafka_offsets(
    bootstrap: str, topics: set[str], timeout_sec: float
) -> tuple[Offsets | None, Offsets | None, str | None]:
    earliest: Offsets = {}
    latest: Offsets = {}
    try:
        with TopicClient(bootstrap, timeout_sec=timeout_sec) as kafka:
            for topic in sorted(topics):
                earliest.update(kafka.earliest(topic))
                latest.update(kafka.latest(topic))
    except KafkaUnreachableError:
        return (
            None,
            None,
            (
                f"Kafka at {bootstrap} did not answer, so whether the offsets still "
                f"exist is unknown (start `python -m kafka_app`?)"
            ),
        )
    return earliest, latest, None


def read_state_count(
    checkpoint: Path, log_dir: Path = Path("log")
) -> tuple[int | None, str | None]:
    """The running count in the state store at the last committed batch, via Spark's reader."""
    from spark_app.checkpoint.state_data_source import reader_session, statestore_options

    with reader_session(checkpoint, log_dir) as spark:
        rows = (
            spark.read.format("statestore")
            .options(**statestore_options(checkpoint))
            .load(str(checkpoint.resolve()))
            .collect()
        )
    if not rows:
        return None, "the state store holds no rows yet"
    count = _find_count(rows[0]["value"].asDict(recursive=True))
    if count is None:
        return (
            None,
            f"no count field in the state value {rows[0]['value']} (another query's state?)",
        )
    return count, None


def _find_count(value: object) -> int | None:
    # applyInPandasWithState nests the user's state (`count`) inside its own struct
    # (`groupState`, beside the timeout timestamp); search rather than hard-code the layout.
    if isinstance(value, dict):
        if isinstance(value.get("count"), int):
            return int(value["count"])
        for inner in value.values():
            found = _find_count(inner)
            if found is not None:
                return found
    return None


def _read_state(
    checkpoint: Path,
    with_state: bool,
    state_source: bool,
    committed: bool,
    blocked: bool,
    log_dir: Path,
    state_batch: int | None = None,
) -> tuple[int | None, str | None, StateReport | None]:
    """The count in state (and, with `state_source`, the State Data Source's full report)."""
    if not with_state and not state_source:
        return None, "not read (--no-state)", None
    if not committed:
        return None, "no batch committed yet, so no state", None
    if blocked:
        return None, "not read: Spark cannot open this checkpoint (see below)", None
    if state_source:  # one Spark start for both: the full report holds the count
        from spark_app.checkpoint.state_data_source import read_state

        report = read_state(checkpoint, log_dir, state_batch)
        return report.count, None if report.count is not None else "; ".join(report.notes), report
    return (*read_state_count(checkpoint, log_dir), None)


def inspect_checkpoint(
    checkpoint: Path,
    bootstrap: str | None,
    with_state: bool,
    log_dir: Path = Path("log"),
    kafka_timeout_sec: float = 15.0,
    state_source: bool = False,
    state_batch: int | None = None,
) -> InspectReport:
    """What a restart from `checkpoint` will do. The Kafka timeout is generous: on a busy
    machine kafka-python's first connection alone can take seconds, and a timeout turns "the
    restart will fail" into "unknown"."""
    info: CheckpointInfo = read_checkpoint(checkpoint)
    if not info.exists or info.is_new:
        return InspectReport(checkpoint=str(checkpoint), exists=info.exists)
    resume = info.resume_from or {}
    earliest = latest = None
    kafka_note = None
    if bootstrap and resume:
        earliest, latest, kafka_note = _kafka_offsets(
            bootstrap, {tp.topic for tp in resume}, kafka_timeout_sec
        )
    blockers = [blocker.sentence() for blocker in restart_blockers(checkpoint)]
    count, state_note, source = _read_state(
        checkpoint,
        with_state,
        state_source,
        info.last_committed is not None,
        bool(blockers),
        log_dir,
        state_batch,
    )
    fields = stored_state_fields(checkpoint)
    return InspectReport(
        blockers=blockers,
        state_fields=list(fields) if fields is not None else None,
        state_schema=schema_version(fields) if fields is not None else None,
        checkpoint=str(checkpoint),
        exists=True,
        query_id=info.query_id,
        last_committed_batch=info.last_committed_id,
        pending_batch=info.pending_id,
        pending_range_end=offsets_to_json(info.pending.end)
        if info.pending and info.pending.end
        else None,
        resume_from=offsets_to_json(resume) if resume else None,
        state_count=count,
        state_note=state_note,
        kafka=bootstrap,
        kafka_note=kafka_note,
        state_source=source.to_json() if source is not None else None,
        state_source_lines=source.lines() if source is not None else [],
        partitions=partition_verdicts(
            resume, earliest, latest, info.pending.end if info.pending else None
        ),
        kept=kept_settings(info.conf),
    )


# The conf keys of offsets/N a user is most likely to think they changed, with a short label.
KEPT_SETTINGS = {
    "spark.sql.shuffle.partitions": "spark.sql.shuffle.partitions",
    "spark.sql.streaming.stateStore.providerClass": "state store",
    "spark.sql.streaming.stateStore.encodingFormat": "state encoding",
    "spark.sql.streaming.stateStore.checkpointFormatVersion": "checkpoint format",
}


def kept_settings(conf: Mapping[str, str]) -> dict[str, str]:
    """What the checkpoint pins among KEPT_SETTINGS, labelled, a class name shortened."""
    return {
        label: conf[key].rsplit(".", 1)[-1] for key, label in KEPT_SETTINGS.items() if key in conf
    }


def _offsets_words(value: dict[str, dict[str, int]] | None) -> str:
    if not value:
        return "-"
    return describe_offsets(
        {TopicPartition(t, int(p)): o for t, ps in value.items() for p, o in ps.items()}
    )


def _schema_sentence(report: InspectReport) -> str:
    fields = ", ".join(report.state_fields or [])
    if report.state_schema is None:
        return (
            f"state schema: ({fields}), not one this app writes: only the code that wrote "
            f"it can restart this checkpoint"
        )
    return (
        f"state schema: ({fields}), written with --state-schema {report.state_schema}; "
        f"Spark refuses a restart with another --state-schema (start that one on a new "
        f"checkpoint)"
    )


def _kept_lines(report: InspectReport) -> list[str]:
    """What a restart keeps that a user might think they changed (issue 33's questions)."""
    lines = []
    if report.kept:
        settings = ", ".join(f"{label} {value}" for label, value in report.kept.items())
        lines.append(f"  kept by the checkpoint, whatever a restart sets: {settings}")
    if report.resume_from:
        read = "; ".join(
            f"{topic} partitions {', '.join(sorted(ps, key=int))}"
            for topic, ps in sorted(report.resume_from.items())
        )
        lines.append(
            f"  reads {read}; a partition or subscribed topic added later is read from "
            f"its earliest offset, whatever --starting-offsets says"
        )
    return lines


def render_text(report: InspectReport) -> list[str]:
    """The report as short sentences, one fact per line."""
    if not report.exists:
        return [
            f"No checkpoint at {report.checkpoint}: the app will start a new query from "
            f"--starting-offsets (earliest by default) with the count at 0."
        ]
    if (
        report.query_id is None
        and report.last_committed_batch is None
        and report.pending_batch is None
    ):
        return [f"{report.checkpoint} holds no batches yet: the app will start a new query."]
    lines = [
        f"Checkpoint {report.checkpoint}",
        f"  query id: {report.query_id or '(metadata missing)'}",
    ]
    if report.last_committed_batch is None:
        lines.append("  no batch committed yet")
    else:
        lines.append(f"  last committed batch: {report.last_committed_batch}")
    if report.pending_batch is not None:
        lines.append(
            f"  batch {report.pending_batch} was planned but not committed: a restart "
            f"replays it with exactly the same offsets, up to {_offsets_words(report.pending_range_end)}"
        )
    lines.append(f"  resumes from: {_offsets_words(report.resume_from)}")
    lines.extend(_kept_lines(report))
    if report.state_count is not None:
        lines.append(f"  count held in state: {report.state_count}")
    elif report.state_note:
        lines.append(f"  count held in state: {report.state_note}")
    if report.state_fields is not None:
        lines.append(f"  {_schema_sentence(report)}")
    if report.state_source_lines:
        lines.append("  read through Spark's State Data Source:")
        lines.extend(f"    {line}" for line in report.state_source_lines)
    if report.kafka_note:
        lines.append(f"  {report.kafka_note}")
    lines.extend(f"  {verdict.sentence()}" for verdict in report.partitions)
    lines.extend(f"  {blocker}" for blocker in report.blockers)
    if report.blockers:
        lines.append("  verdict: a restart will FAIL (Spark cannot open this checkpoint)")
    elif report.partitions and report.kafka_note is None:
        lines.append(
            "  verdict: "
            + (
                "a restart will FAIL (data lost in Kafka)"
                if report.restart_will_fail
                else "a restart will continue"
            )
        )
    return lines


def report_in_output(output: str) -> dict[str, Any] | None:
    """`inspect --json`'s report read back from the command's output (Spark may print lines
    around it); None if the output holds none."""
    decoder = json.JSONDecoder()
    for start in (
        i for i, ch in enumerate(output) if ch == "{" and (i == 0 or output[i - 1] == "\n")
    ):
        try:
            value, _ = decoder.raw_decode(output, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "checkpoint" in value:
            return value
    return None


@contextmanager
def readable_copy(where: SparkAppSettings) -> Iterator[tuple[Path, str]]:
    """(a local folder holding the checkpoint, where it lives): the folder itself on local; for
    a store, a whole copy under the log folder, removed when done (a copy left by a killed run
    goes at the next). The state comes too, even with --no-state: whether a restart can open
    the checkpoint depends on which state files are there. Nothing on the store: an empty
    folder, which reads as no checkpoint."""
    place = where.checkpoint
    if place.is_local:
        yield place.folder, str(place.folder)
        return
    from spark_app.checkpoint.store_copy import NoCheckpointThere, copy_down
    from spark_app.runtime.checkpoint_store import check_store

    check_store(place)  # one line now, not minutes of Hadoop's retries
    copy = where.log_dir / "inspect" / "checkpoint-copy"
    try:
        try:
            copy_down(place, copy)
        except NoCheckpointThere:
            shutil.rmtree(copy)  # no folder reads as "no checkpoint", an empty one as "new"
        yield copy, place.location
    finally:
        shutil.rmtree(copy.parent, ignore_errors=True)


def _located(report: InspectReport, folder: str, location: str) -> InspectReport:
    """The report with the copy's folder named by where the checkpoint lives."""

    def on_store(text: str) -> str:
        return text.replace(folder, location)

    return replace(
        report,
        checkpoint=location,
        blockers=[on_store(b) for b in report.blockers],
        state_note=on_store(report.state_note) if report.state_note else None,
        state_source_lines=[on_store(line) for line in report.state_source_lines],
    )


def run_inspect(args: argparse.Namespace, where: SparkAppSettings) -> int:
    """The command: prints the report; exit 0 (the report itself is the answer). `where` names
    the checkpoint's place; one on HDFS or S3 is read from a copy made with Hadoop's client."""
    with readable_copy(where) as (folder, location):
        try:
            report = inspect_checkpoint(
                folder,
                args.bootstrap_servers,
                not args.no_state,
                args.log_dir,
                state_source=args.state_source or args.state_batch is not None,
                state_batch=args.state_batch,
            )
        except SparkAppError as error:  # e.g. a torn offsets/N: named where it is, not the copy
            raise type(error)(str(error).replace(str(folder), location)) from error
    if location != str(folder):  # a copy's path means nothing to the reader: name the store's
        report = _located(report, str(folder), location)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print("\n".join(render_text(report)))
    return 0
