"""The seed's SparkApp: read Kafka, count every message in Spark's state, write the output log.

One Structured Streaming query: Spark's Kafka connector (or, offline, our source) -> running
count (state store) -> foreachBatch handler that writes two lines per message to
`log/streaming-output.log`, with the checkpoint in `--checkpoint-dir`. SIGTERM or Ctrl-C stops
the query between batches and returns normally.

Usage: `SparkApp(SparkAppSettings()).run()`
"""

from __future__ import annotations

import logging
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from spark_app.checkpoint.health import RestartBlocker, torn_state_file
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint, read_query_id
from spark_app.checkpoint.state_data_source import commit_format
from spark_app.checkpoint.state_schema import find_schema_refusal
from spark_app.checkpoint.torn import torn_file_error
from spark_app.errors import (
    CheckpointDiskFullError,
    CheckpointError,
    CheckpointSharedError,
    CheckpointStoreLostError,
    KafkaUnreachableError,
    SourceOptionError,
    SparkAppError,
    StateStoreOptionError,
    StreamFailedError,
    TornFileError,
    unwrap,
)
from spark_app.lines.known_spark_bugs import known_spark_bug
from spark_app.lines.output_line import OutputRow, format_event_line, format_lines
from spark_app.lines.start_lines import new_checkpoint_line
from spark_app.lines.state_events import IDLE_TIMER, Event, describe, events_in, is_event
from spark_app.offsets import TopicPartition
from spark_app.query.connector_group import BatchStartCommitter
from spark_app.query.counter import count_messages
from spark_app.query.graceful_stop import (
    STOPPED_BEFORE_OUTPUT,
    STOPPED_BEFORE_START,
    STOPPED_CLEANLY,
    STOPPED_JVM_GONE,
    OutputGate,
    interrupted_line,
    stop_between_batches,
    stopped_before_output,
)
from spark_app.query.group_offsets import StartChoice, choose_start
from spark_app.query.negative_key import NegativeKeyPolicy
from spark_app.query.progress import ProgressPrinter, console_writer
from spark_app.query.sink import open_sink
from spark_app.query.source_choice import check_connector_available, source_format, source_options
from spark_app.runtime.checkpoint_store import (
    check_store,
    exists,
    remote_commit_format,
    remote_pins,
    remote_query_id,
)
from spark_app.runtime.jvm_end import jvm_gone, keep_jvm_traces_in_log
from spark_app.runtime.log_file import log_to
from spark_app.runtime.session import SparkSessionResource, check_java, jvm_pid
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.runtime.state_store import (
    as_pinned,
    check_state_store,
    format_downgrade_refusal,
    pinned_format_note,
    pinned_store_note,
)
from spark_app.runtime.worker_warmup import warm_python_worker
from spark_app.settings import SparkAppSettings
from spark_app.source.data_loss import connector_data_loss
from spark_app.source.kafka_client import GroupOffsets, TopicClient
from spark_app.source.kafka_source import KafkaSource
from spark_app.source.offset_reader import OffsetReader, resolve_starting_offsets
from spark_app.source.options import SourceOptions

__all__ = ["SparkApp", "BatchHandler", "preflight", "explain_failure"]

# Words in Spark's own errors that mean "this checkpoint does not fit this query".
_CHECKPOINT_WORDS = (
    "STATE_STORE",
    "checkpoint",
    "Checkpoint",
    "INCOMPATIBLE",
    "StateSchema",
    "state schema",
    "CANNOT_LOAD_STATE_STORE",
    "MISSING_METADATA_FILE",
)


# Spark's conditions for state it cannot load, with the sentence after them (up to the file).
_STATE_CONDITION = re.compile(
    r"\[?(CANNOT_LOAD_STATE_STORE\.[A-Z_]+)\]?[^\n]*?(?:does not exist|$)", re.MULTILINE
)
# Spark 4.1's own checksum of a state file (`<file>.crc`) that does not match it, the cause
# inside CANNOT_LOAD_STATE_STORE.UNCATEGORIZED (the museum's SPARK-51972 exhibit on 4.1.1).
_CHECKSUM_FAILED = re.compile(r"\[CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED\][^\n]*?File: (\S+)")
# A checkpoint format 2 state file: named by the attempt that wrote it (`<v>_<uuid>.zip`), so
# no retry writes it again (the SPARK-51988 exhibit's snapshot zip on 4.2.0).
_FORMAT_2_STATE_FILE = re.compile(r"/\d+_[0-9a-f-]{36}\.(zip|changelog)$")

# Spark's words for a checkpoint log file torn by a crash of the machine (measured on 4.2.0,
# storage-outage): an empty offsets/N or commits/N ("Failed to read log file F. Incomplete log
# file[ in the offset commit log]"), one cut short under Hadoop's local .crc ("Checksum error:
# F at 0 exp: … got: …"), or without it (Jackson's "Unexpected end-of-input", no file named).
# Spark's words when offsets/N or commits/N was written first by another query on the same
# checkpoint (HDFSMetadataLog.add found the file): "… Multiple streaming jobs detected for 26."
_CONCURRENT_LOG_UPDATE = re.compile(
    r"\[CONCURRENT_STREAM_LOG_UPDATE\][^\n]*?detected for "
    r"(?P<batch>\d+)\.(?:\s*Please make sure [^\n]*?at a time\.)?"
)
_TORN_LOG_FILE = re.compile(
    r"(?:Failed to read log file (?P<log>\S+?)\. (?P<why>Incomplete log "
    r"file[^\n]*?)(?: SQLSTATE|\n|$))|(?:Checksum error: (?P<crc>\S+) at)"
)


# ENOSPC in Java's words, with the file it was writing when Hadoop says which.
_DISK_FULL = re.compile(r"[^\n]*No space left on device[^\n]*")
_WRITE_CONDITION = re.compile(r"\[(CANNOT_WRITE_STATE_STORE\.[A-Z_]+)\]")

# A checkpoint store that stopped answering mid-run: S3A's and the AWS SDK's words after their
# retries, or Hadoop's IPC client's for a NameNode gone.
_STORE_GONE = re.compile(
    r"[^\n]*(?:Unable to execute HTTP request|Connection refused|"
    r"failed on connection exception|ConnectException|"
    r"End of File Exception between)[^\n]*"
)

_S3A_CALL = re.compile(
    r"(\w[\w ]*? on \S+?):? \S*SdkClientException: (Unable to execute HTTP "
    r"request: [^\n]*?(?:\(SDK Attempt Count: \d+\)|(?= SQLSTATE)|$))",
    re.MULTILINE,
)


# A Kafka client refusing its configuration when the query starts (the connector's, or ours in
# its words): the sentence after the exception's name says which settings.
_KAFKA_CONFIG_REFUSED = re.compile(
    r"org\.apache\.kafka\.common\.config\.ConfigException: ([^\n]+?\.)(?:\s|$)"
)

# The connector's failure when Kafka does not answer in time: the driver's admin client ("Timed
# out waiting for a node assignment") or a task's consumer ("Timeout of 2000ms expired before
# the position … could be determined"). Ours says KAFKA_UNREACHABLE; the app's line names the
# same condition for both, so the supervisor treats either as retriable.
_KAFKA_TIMEOUT = re.compile(r"org\.apache\.kafka\.common\.errors\.TimeoutException: ([^\n]+)")

# Spark gives a Python worker a few seconds to start and connect back; on an overloaded machine
# importing pyspark can take longer. Nothing was committed, so running the query again from
# its checkpoint is safe.
_TRANSIENT_WORDS = (
    "Python worker failed to connect back",
    "EOFException occurred while reading the port number",
)
_QUERY_ATTEMPTS = 3

# How long a stop waits for Spark to deliver the last batch's progress (its console line): a
# moment normally; bounded because a JVM that is going away delivers nothing more.
_LAST_PROGRESS_SEC = 3.0


def _is_transient(failure: BaseException) -> bool:
    return unwrap(failure) is None and any(w in str(failure) for w in _TRANSIENT_WORDS)


def preflight(settings: SparkAppSettings) -> StartChoice | None:
    """Fail fast, before the slow Spark start, on what we can check without Spark: Java, the
    source's options, the checkpoint, Kafka, (for a new checkpoint) startingOffsets, and last
    the connector's availability, which may fetch its jars once. The source checks these again
    in Spark, in the connector's words; here a mistake costs a second instead of a Spark start,
    and Kafka gets one quick try instead of the connector's minutes of retries.

    With --offsets-from-group it also decides where the query starts (the group's offsets on a
    fresh checkpoint), on the same look at the checkpoint and at Kafka.
    """
    check_java()
    check_store(settings)
    options = replace(
        SourceOptions.parse(source_options(settings)),
        fetch_offset_num_retries=1,
        kafka_params={"default.api.timeout.ms": "10000", "request.timeout.ms": "10000"},
    )
    info, committed_format = _local_view(settings)
    _judge_pins(settings, info.conf, committed_format)
    with OffsetReader(options, warn=lambda _: None) as reader:  # ours, with kafka-python
        partitions = reader.partitions()
        if info.is_new:
            resolve_starting_offsets(options, reader)
    # After every other check: on an empty jar cache this fetches the connector (10 s or
    # more), and a refused option or an unreachable Kafka should not wait for that.
    if settings.source == "spark-kafka":
        _check_connector(settings)
    if info.is_new and settings.local_checkpoint:
        print(new_checkpoint_line(settings.starting_offsets), flush=True)
    if settings.offsets_from_group is None:
        return None
    return _start_from_group(settings, settings.offsets_from_group, info.is_new, partitions)


def _local_view(settings: SparkAppSettings) -> tuple[CheckpointInfo, int]:
    """The checkpoint as read without Spark, and its commit log's format. A checkpoint on a
    store (HDFS, S3) is not read here: it counts as new, so startingOffsets and the state
    store's checks are Spark's, which reads the store (a local folder of the same name is
    another checkpoint); the pins are judged once Spark is up (_judge_store_pins)."""
    if not settings.local_checkpoint:
        return CheckpointInfo(path=settings.checkpoint_dir, exists=False), 1
    return read_checkpoint(settings.checkpoint_dir), commit_format(settings.checkpoint_dir)[0]


def _judge_pins(
    settings: SparkAppSettings, pinned: Mapping[str, str], committed_format: int
) -> None:
    """What the checkpoint pins against what the app was asked for: a StateStoreOptionError in
    one line where Spark would fail after planning a batch, a note where it silently keeps
    the checkpoint's choice."""
    spark = installed_spark_version()
    # Judged on the store Spark will run: a restart keeps the one pinned in the checkpoint.
    check_state_store(as_pinned(settings, pinned))
    refusal = format_downgrade_refusal(settings, committed_format, spark)
    if refusal is not None:
        raise StateStoreOptionError(refusal)
    for note in (
        pinned_store_note(settings, pinned),
        pinned_format_note(settings, committed_format, spark),
    ):
        if note is not None:
            print(note, flush=True)


def _judge_store_pins(spark: Any, settings: SparkAppSettings) -> None:
    """_judge_pins for a checkpoint on a store, read through Spark's Hadoop client once the
    session is up (preflight runs before it, without a client for the store)."""
    location = settings.checkpoint_location
    try:
        pinned = remote_pins(spark, location)
        committed_format = remote_commit_format(spark, location)
    except Exception:  # Py4J's wrapping of the store's IOException: the query's start meets it too
        return  # and explains it in one line (_store_lost); a judgement needs the files
    _judge_pins(settings, pinned, committed_format)


def _check_connector(settings: SparkAppSettings) -> None:
    check_connector_available(installed_spark_version())


def _start_from_group(
    settings: SparkAppSettings,
    group: str,
    checkpoint_is_new: bool,
    partitions: list[TopicPartition],
) -> StartChoice:
    with GroupOffsets(settings.bootstrap_servers, group) as offsets:
        committed = offsets.committed(partitions)
    return choose_start(
        group,
        checkpoint_is_new=checkpoint_is_new,
        partitions=partitions,
        committed=committed,
        starting_offsets=settings.starting_offsets,
    )


def explain_failure(error: BaseException, settings: SparkAppSettings) -> SparkAppError:
    """Turn whatever Spark raised into one of our errors with its one-line advice."""
    ours = unwrap(error)
    if ours is not None:
        return ours
    text = str(error)
    connector = connector_data_loss(text, lambda tp: _offsets_now(settings, tp))
    if connector is not None:  # --source spark-kafka: name the condition as ours does
        return connector
    timed_out = _KAFKA_TIMEOUT.search(text)
    if timed_out is not None:  # the connector's words for a Kafka it cannot reach
        return KafkaUnreachableError.at(
            settings.bootstrap_servers,
            f"Spark's Kafka connector: TimeoutException: {timed_out.group(1).strip()[:200]}",
        )
    known = known_spark_bug(text, settings, installed_spark_version())
    if known is not None:
        return known
    shared = _CONCURRENT_LOG_UPDATE.search(text)
    if shared is not None:
        return _shared_checkpoint(shared, settings)
    refused = _KAFKA_CONFIG_REFUSED.search(text)
    if refused is not None:
        return SourceOptionError(
            f"Kafka's client refused the source's kafka.* options: "
            f"{refused.group(1)} Change the --source-option named there "
            f"(e.g. give kafka.request.timeout.ms too) and start again."
        )
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    # Only the message, not the Java stack trace: Spark's package names mention checkpoints too.
    message_lines = [line for line in text.splitlines() if not line.strip().startswith("at ")]
    head = "\n".join(message_lines[:3])
    refusal = find_schema_refusal("\n".join(message_lines[:6]))
    if refusal is not None:
        return refusal.error(settings.checkpoint_dir)
    # The storage under the checkpoint first: a state file or a log file that cannot be read
    # because the disk is full or the store is gone is not a damaged checkpoint.
    full = _DISK_FULL.search(text)
    if full is not None:
        condition = _WRITE_CONDITION.search(text)  # the state store's, when it met the disk
        said = f"[{condition.group(1)}] " if condition else ""
        return CheckpointDiskFullError(
            f"{said}{full.group(0).strip().removeprefix('Caused by: ')[:300]} [playground: the "
            f"disk under {settings.checkpoint_dir} is full. Spark writes each checkpoint file "
            f"under a temporary name and renames it, so the failed write left no torn file: free "
            f"space there and start the app again]"
        )
    lost = _store_lost(text, settings)
    if lost is not None:
        return lost
    state_error = _STATE_CONDITION.search("\n".join(message_lines))
    if state_error is not None:
        torn_state = _torn_state_file(settings)
        if torn_state is not None:  # Spark's condition does not name the file: we can
            return TornFileError(
                f"{state_error.group(0)[:300].strip()} [playground: "
                f"{torn_state.missing} {torn_state.problem}. "
                f"{torn_state.remedy}]"
            )
        checksum = _CHECKSUM_FAILED.search(text)
        if checksum is not None:  # the wrapper says only "an error occurred during loading"
            return CheckpointError(
                f"the checkpoint in {settings.checkpoint_dir} cannot be used: "
                f"{state_error.group(0)[:200]} caused by {checksum.group(0).split(']')[0]}] "
                f"{checksum.group(1).removeprefix('file:')} does not match Spark's "
                f"checksum beside it (`.crc`). {_checksum_advice(checksum.group(1))}"
            )
        # A state file Spark cannot read surfaces inside the batch (foreachBatch's job), wrapped
        # in FOREACH_BATCH_USER_FUNCTION_ERROR: name Spark's own condition, not the wrapper
        # (looked for before the wrapper's first line, which would hide it: the museum's
        # SPARK-54307 exhibit on 4.0 and 4.1).
        return CheckpointError(
            f"the checkpoint in {settings.checkpoint_dir} cannot be used: "
            f"{state_error.group(0)[:600]}. Restore the missing state file, or "
            f"delete the folder to start over (the count restarts)."
        )
    torn = _TORN_LOG_FILE.search(text)
    if torn is not None:
        return _torn_log_file(torn)
    if any(word in head for word in _CHECKPOINT_WORDS):
        return CheckpointError(
            f"the checkpoint in {settings.checkpoint_dir} cannot be used by this "
            f"query ({first[:300]}). Run the code that wrote it, or delete the "
            f"folder to start over (the count restarts)."
        )
    detail = " ".join(line.strip() for line in text.splitlines()[-3:] if line.strip())
    return StreamFailedError(
        f"{first[:300]} ... {detail[-300:]} (details in {settings.spark_log_file})"
    )


def _shared_checkpoint(match: re.Match[str], settings: SparkAppSettings) -> CheckpointSharedError:
    """Another app wrote batch N's offsets or commit first: say so, and not "delete the folder"
    (what checkpoint-moved-and-shared saw: the checkpoint stays sound, the other app goes on)."""
    batch = match.group("batch")
    said = " ".join(match.group(0).split())  # Spark's two lines as one
    return CheckpointSharedError(
        f"{said} [playground: another query wrote batch {batch} of "
        f"{settings.checkpoint_dir} first: two apps run on this checkpoint. This one stopped; "
        f"the other goes on, and the checkpoint is sound: do not delete it. Any output this app "
        f"wrote for batch {batch} was written by the other too. Run one app per checkpoint: stop "
        f"the old job before starting the new one]"
    )


def _checksum_advice(path: str) -> str:
    """What to do about a state file that does not match its checksum, by how it is named."""
    kind = _FORMAT_2_STATE_FILE.search(path)
    if kind is not None:
        repair = (
            " For a snapshot zip with changelog checkpointing, Spark 4.2's "
            "spark.sql.streaming.stateStore.autoSnapshotRepair.enabled=true (its default) "
            "passes the snapshot over and rebuilds the state from the changelogs instead "
            "(SPARK-51988)."
            if kind.group(1) == "zip"
            else ""
        )
        return (
            "A checkpoint format 2 file is named by the attempt that wrote it, so no retry "
            "wrote it again: it changed after it was written (the storage). Restore it from a "
            f"copy of the checkpoint.{repair}"
        )
    return (
        "On checkpoint format 1 a retried batch rewrites a state file under the same name, so "
        "the two can come from different attempts (SPARK-56461): if the file is a retry's "
        "own, delete its `.crc` to load it unchecked, else restore it; "
        "spark.sql.streaming.checkpoint.fileChecksum.enabled=false avoids it on 4.1."
    )


def _torn_log_file(match: re.Match[str]) -> TornFileError:
    """Spark's failure on a torn offsets/N or commits/N, with the repair for that file."""
    where = match.group("log") or match.group("crc")
    how = (
        f"cannot be read ({match.group('why').strip()})"
        if match.group("log")
        else "does not match its checksum (Hadoop's .crc beside it)"
    )
    local = where.removeprefix("file:")
    if local == where and "://" in where:  # on a store: only the file's name can be given
        return TornFileError(
            f"{where} {how}, as if cut short. Delete it if it is the newest "
            f"offsets/N without commits/N, or the newest commits/N; else restore "
            f"it or start over."
        )
    return torn_file_error(Path(local), how)


def _after_wrapper(line: str) -> str:
    """Spark's STREAM_FAILED line without its query ids: the cause it names, up to its link."""
    said = line.split("terminated with exception: ", 1)[-1]
    return said.split("; For more details see", 1)[0][:300]


def _store_lost(text: str, settings: SparkAppSettings) -> CheckpointStoreLostError | None:
    """The store's client gave up on a checkpoint store that no longer answers (not Kafka's:
    the words must come with the store's client or URI)."""
    if settings.local_checkpoint:
        return None
    gone = _STORE_GONE.search(text)
    if gone is None or not any(
        word in text for word in ("s3a", "S3A", "hdfs", "DFSClient", "org.apache.hadoop.ipc")
    ):
        return None
    url = settings.checkpoint_store_url or settings.checkpoint_store
    s3 = _S3A_CALL.search(text)  # the call and the SDK's reason, without Spark's wrapping
    said = f"{s3.group(1)}: {s3.group(2)}" if s3 else _after_wrapper(gone.group(0).strip())
    return CheckpointStoreLostError(
        f"{said[:400]} [playground: the {settings.checkpoint_store} checkpoint "
        f"store at {url} stopped answering while the query ran, and its client gave up. "
        f"The checkpoint is intact: start the app again once the store answers (--supervise "
        f"does it for you)]"
    )


def _torn_state_file(settings: SparkAppSettings) -> RestartBlocker | None:
    """A state file of a local checkpoint cut short by a crash of the machine, if any."""
    if not settings.local_checkpoint:
        return None
    try:
        return torn_state_file(read_checkpoint(settings.checkpoint_dir))
    except (CheckpointError, OSError):
        return None  # the failure is explained without it


def _offsets_now(settings: SparkAppSettings, tp: TopicPartition) -> tuple[int, int] | None:
    """Kafka's earliest and latest offsets of `tp` now, or None when Kafka does not answer: an
    addition to the connector's words is worth a few seconds, not a second failure."""
    try:
        with TopicClient(settings.bootstrap_servers, timeout_sec=5.0) as client:
            return client.earliest_of([tp])[tp], client.latest_of([tp])[tp]
    except Exception:  # noqa: BLE001 - any failure only leaves the addition out
        return None


def _counted(records: Any, settings: SparkAppSettings) -> Any:
    """The records with their running count, by the operator --counter names."""
    if settings.counter == "transform-with-state":
        from spark_app.query.counter_tws import count_messages_tws  # imports protobuf's client

        return count_messages_tws(
            records,
            settings.state_schema,
            _seeded(records, settings),
            ttl_sec=settings.state_ttl_sec,
            idle_timer_sec=settings.idle_timer_sec,
        )
    return count_messages(records, settings.state_schema)


def _seeded(records: Any, settings: SparkAppSettings) -> Any:
    """transformWithState's initialState from --initial-state-from, read before the query
    starts, until this checkpoint has committed its batch 0: Spark applies it in batch 0 only
    (a replayed batch 0 needs it again) and accepts a restart without it, so once batch 0 is
    committed the old checkpoint is not read, and may be deleted."""
    if settings.initial_state_from is None:
        return None
    from spark_app.query.initial_state import initial_state, read_seed, seed_line, skipped_line

    if read_checkpoint(settings.checkpoint_dir).last_committed_id is not None:
        print(skipped_line(settings.initial_state_from), flush=True)
        return None

    spark = records.sparkSession
    seed = read_seed(spark, settings.initial_state_from)
    print(seed_line(seed), flush=True)
    return initial_state(spark, seed)


class BatchHandler:
    """The foreachBatch function: order rows by count, apply the negative-key policy, write."""

    def __init__(self, settings: SparkAppSettings, policy: NegativeKeyPolicy) -> None:
        self.settings = settings
        self.policy = policy
        self.sink = open_sink(
            settings.sink,
            settings.output_file,
            lambda: (
                read_query_id(settings.checkpoint_dir)
                if settings.local_checkpoint
                else remote_query_id(settings.checkpoint_location)
            ),
        )
        self.last_count: int | None = None
        # Closed by a stop: a batch that begins after it writes nothing (graceful_stop.py).
        self.gate = OutputGate()
        # Code inside foreachBatch: free to change between restarts of the same checkpoint.
        self.output_format = settings.output_format
        # The connector commits nothing to Kafka: with --offsets-from-group the handler does.
        self.commit_start = (
            BatchStartCommitter(settings)
            if settings.offsets_from_group and settings.source == "spark-kafka"
            else None
        )

    def close(self) -> None:
        if self.commit_start is not None:
            self.commit_start.close()

    def __call__(self, batch: Any, batch_id: int) -> None:
        self.gate.enter(batch_id)
        if self.commit_start is not None:
            self.commit_start(batch_id)
        with warnings.catch_warnings():
            # On failure (e.g. interrupted by a stop) pyspark warns with the whole Java trace
            # before raising the same error, which reaches the CLI's one line anyway.
            warnings.simplefilter("ignore", UserWarning)
            frame = batch.toPandas()
        if frame.empty:
            return
        # transformWithState's timers and TTL add event rows (no offset) to the messages.
        events = events_in(frame)
        frame = frame[~is_event(frame)].sort_values("count")
        rows = [
            OutputRow(t, k, v, int(c), int(p), int(o))
            for t, k, v, c, p, o in zip(
                frame["topic"],
                frame["key"],
                frame["value"],
                frame["count"],
                frame["partition"],
                frame["offset"],
            )
        ]
        self.write(batch_id, rows, events)

    def write(self, batch_id: int, rows: list[OutputRow], events: Sequence[Event] = ()) -> None:
        victim = self.policy.first_to_crash_on(rows)
        with self.sink.batch(batch_id) as out:
            if out is not None:
                # In Spark's order: a TTL found expired as the rows are handled, before them;
                # a timer fires after the batch's rows.
                self._write_events(batch_id, out, [e for e in events if e.kind != IDLE_TIMER])
                if victim is not None:
                    # Die mid-batch, as a real failure would (see negative_key.py).
                    out.write(format_lines(rows[:victim], datetime.now(), self.output_format))
                    out.flush()
                    self.policy.crash(rows[victim])
                out.write(format_lines(rows, datetime.now(), self.output_format))
                self._write_events(batch_id, out, [e for e in events if e.kind == IDLE_TIMER])
        if rows:
            self.last_count = rows[-1].count

    @staticmethod
    def _write_events(batch_id: int, out: Any, events: Sequence[Event]) -> None:
        """Event lines in the output log, each echoed on the console."""
        now = datetime.now()
        for event in events:
            line = format_event_line(event.kind, event.count, describe(event), now)
            out.write(line)
            print(
                f"batch {batch_id}: {line.split('[StreamingOutput]: ', 1)[1]}", end="", flush=True
            )


class SparkApp:
    """Runs the query until stopped (returns) or failed (raises a SparkAppError)."""

    def __init__(self, settings: SparkAppSettings) -> None:
        self.settings = settings
        # A plain flag, set by the signal handler and polled by the wait: an Event takes a lock
        # in set(), and a second signal arriving inside that set() ran the handler again on the
        # same thread, which waited for its own lock for ever (SIGTERM from `timeout` and from
        # `uv run` together, 26 Nov: the app hung with its JVM gone).
        self._stop_asked = False
        self._starting_offsets = settings.starting_offsets
        self._printer: ProgressPrinter | None = None

    def request_stop(self, *_: object) -> None:
        self._stop_asked = True

    @property
    def stop_asked(self) -> bool:
        return self._stop_asked

    def _install_signals(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self.request_stop)
            signal.signal(signal.SIGINT, self.request_stop)

    def _start_query(self, spark: Any, handler: BatchHandler) -> Any:
        s = replace(self.settings, starting_offsets=self._starting_offsets)
        records = spark.readStream.format(source_format(s)).options(**source_options(s)).load()
        writer = (
            _counted(records, s)
            .writeStream.outputMode("update")
            .foreachBatch(handler)
            .option("checkpointLocation", s.checkpoint_location)
        )
        if s.trigger == "available-now":
            return writer.trigger(availableNow=True).start()
        return writer.trigger(processingTime=f"{s.trigger_sec} seconds").start()

    def run(self) -> None:
        self._install_signals()
        log_to(logging.getLogger("spark_app"), self.settings.spark_log_file)
        self._choose_start(preflight(self.settings))
        with SparkSessionResource(self.settings) as spark:
            # PySpark's SparkContext takes SIGINT over as it starts: its handler cancels every
            # job and raises KeyboardInterrupt inside whatever Py4J call is running, which
            # prints ~100 lines of Py4J and Java traces. Take it back: Ctrl-C stops as SIGTERM.
            self._install_signals()
            keep_jvm_traces_in_log(spark, self.settings.spark_log_file)
            if not self.settings.local_checkpoint:
                _judge_store_pins(spark, self.settings)
            if self._stop_asked:
                print(STOPPED_BEFORE_START, file=sys.stderr, flush=True)
                return
            warm_python_worker(spark)
            if self.settings.source == "python":
                # Registering a Python data source makes Spark look up every installed one in a
                # Python process of its own (~1 s); the connector, a JVM source, needs none.
                spark.dataSource.register(KafkaSource)
            policy = NegativeKeyPolicy(
                self.settings.on_negative_key, self.settings.log_dir, jvm_pid(spark)
            )
            handler = BatchHandler(self.settings, policy)
            self._printer = ProgressPrinter(console_writer(), lambda: handler.last_count)
            spark.streams.addListener(self._printer)
            if self.settings.ui:
                print(f"Spark UI: {spark.sparkContext.uiWebUrl}", flush=True)
            try:
                self._run_with_retries(spark, handler)
            finally:
                handler.close()

    def _run_with_retries(self, spark: Any, handler: BatchHandler) -> None:
        for attempt in range(1, _QUERY_ATTEMPTS + 1):
            failure = self._run_query(spark, handler)
            if failure is None:
                return
            if not _is_transient(failure) or attempt == _QUERY_ATTEMPTS:
                raise explain_failure(failure, self.settings)
            print(
                f"Spark's Python worker did not start in time (is the machine overloaded?); "
                f"restarting the query from its checkpoint, attempt {attempt + 1} of "
                f"{_QUERY_ATTEMPTS}",
                file=sys.stderr,
                flush=True,
            )

    def _choose_start(self, choice: StartChoice | None) -> None:
        if choice is not None:
            self._starting_offsets = choice.spec
            logging.getLogger("spark_app").info(choice.message)
            print(choice.message, flush=True)

    def _run_query(self, spark: Any, handler: BatchHandler) -> BaseException | None:
        """Run until stopped (None) or failed (the failure, unexplained)."""
        try:
            query = self._start_query(spark, handler)
        except SparkAppError:
            raise
        except Exception as err:  # Spark/Py4J errors: explained by the caller
            return err
        topics = self.settings.subscribe_pattern or self.settings.topic
        print(
            f"Streaming {topics} from {self.settings.bootstrap_servers}, "
            f"checkpoints in {self.settings.checkpoint_location}, output in "
            f"{self.settings.output_file}",
            flush=True,
        )
        return self._await(query, handler.gate, self._commit_exists(spark))

    def _commit_exists(self, spark: Any) -> Callable[[int], bool] | None:
        """How a stop sees that commits/N was written: None reads the local folder; on a store
        Spark's own Hadoop client asks it."""
        if self.settings.local_checkpoint:
            return None
        location = self.settings.checkpoint_location
        return lambda batch: exists(spark, f"{location}/commits/{batch}")

    def _await(
        self, query: Any, gate: OutputGate, commit_exists: Callable[[int], bool] | None = None
    ) -> BaseException | None:
        try:
            while not self._stop_asked:
                if query.awaitTermination(0.5):
                    break
            if query.isActive:
                stop_between_batches(
                    query, gate, self.settings.checkpoint_dir, commit_exists=commit_exists
                )
            failure = query.exception()
        except Exception as err:
            failure = err
        if failure is not None and not self._stop_asked:
            return failure
        gone = failure is not None and jvm_gone(failure)
        if self._printer is not None and not gone:  # the last batch's line, then the stop line
            self._printer.ended.wait(_LAST_PROGRESS_SEC)
        if gone:
            line = STOPPED_JVM_GONE
        elif failure is not None and stopped_before_output(failure):
            line = STOPPED_BEFORE_OUTPUT
        elif failure is not None:
            line = interrupted_line(explain_failure(failure, self.settings).token)
        else:
            line = STOPPED_CLEANLY
        print(line, file=sys.stderr, flush=True)
        return None
