"""The checkpoint and the storage under it failing, in the app's words.

Spark names these failures in its own terms; the app's line keeps Spark's words and adds what a
user needs (which file, what to do), so that no advice throws a sound checkpoint away:

- a second writer on the checkpoint (CONCURRENT_STREAM_LOG_UPDATE): CHECKPOINT_SHARED;
- a full disk (ENOSPC): CHECKPOINT_DISK_FULL;
- a checkpoint store that stopped answering mid-run: CHECKPOINT_STORE.UNREACHABLE (retriable);
- state Spark cannot load (CANNOT_LOAD_STATE_STORE.…): a torn state file named with its repair,
  a state file that does not match its checksum, or a missing one;
- a torn offsets/N or commits/N: CHECKPOINT_UNUSABLE.TORN_FILE with the repair for that file.

Usage: `error = disk_full(text, settings) or store_lost(text, settings) or torn_log_file(text)`
"""

from __future__ import annotations

import re
from pathlib import Path

from spark_app.checkpoint.health import RestartBlocker, torn_state_file
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.torn import torn_file_error
from spark_app.errors import (
    CheckpointDiskFullError,
    CheckpointError,
    CheckpointSharedError,
    CheckpointStoreLostError,
    SparkAppError,
    TornFileError,
)
from spark_app.settings import SparkAppSettings

__all__ = ["shared_checkpoint", "disk_full", "store_lost", "state_unloadable", "torn_log_file"]

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

# Spark's words when offsets/N or commits/N was written first by another query on the same
# checkpoint (HDFSMetadataLog.add found the file): "… Multiple streaming jobs detected for 26."
_CONCURRENT_LOG_UPDATE = re.compile(
    r"\[CONCURRENT_STREAM_LOG_UPDATE\][^\n]*?detected for "
    r"(?P<batch>\d+)\.(?:\s*Please make sure [^\n]*?at a time\.)?"
)
# Spark's words for a checkpoint log file torn by a crash of the machine (measured on 4.2.0,
# storage-outage): an empty offsets/N or commits/N ("Failed to read log file F. Incomplete log
# file[ in the offset commit log]"), one cut short under Hadoop's local .crc ("Checksum error:
# F at 0 exp: … got: …"), or without it (Jackson's "Unexpected end-of-input", no file named).
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


def shared_checkpoint(text: str, settings: SparkAppSettings) -> CheckpointSharedError | None:
    """Another app wrote batch N's offsets or commit first: say so, and not "delete the folder"
    (what checkpoint-moved-and-shared saw: the checkpoint stays sound, the other app goes on)."""
    match = _CONCURRENT_LOG_UPDATE.search(text)
    if match is None:
        return None
    batch = match.group("batch")
    said = " ".join(match.group(0).split())  # Spark's two lines as one
    return CheckpointSharedError(
        f"{said} [playground: another query wrote batch {batch} of "
        f"{settings.checkpoint.folder} first: two apps run on this checkpoint. This one stopped; "
        f"the other goes on, and the checkpoint is sound: do not delete it. Any output this app "
        f"wrote for batch {batch} was written by the other too. Run one app per checkpoint: stop "
        f"the old job before starting the new one]"
    )


def disk_full(text: str, settings: SparkAppSettings) -> CheckpointDiskFullError | None:
    """ENOSPC under the checkpoint: nothing is torn, free space and start again."""
    full = _DISK_FULL.search(text)
    if full is None:
        return None
    condition = _WRITE_CONDITION.search(text)  # the state store's, when it met the disk
    said = f"[{condition.group(1)}] " if condition else ""
    return CheckpointDiskFullError(
        f"{said}{full.group(0).strip().removeprefix('Caused by: ')[:300]} [playground: the "
        f"disk under {settings.checkpoint.folder} is full. Spark writes each checkpoint file "
        f"under a temporary name and renames it, so the failed write left no torn file: free "
        f"space there and start the app again]"
    )


def store_lost(text: str, settings: SparkAppSettings) -> CheckpointStoreLostError | None:
    """The store's client gave up on a checkpoint store that no longer answers (not Kafka's:
    the words must come with the store's client or URI)."""
    if settings.checkpoint.is_local:
        return None
    gone = _STORE_GONE.search(text)
    if gone is None or not any(
        word in text for word in ("s3a", "S3A", "hdfs", "DFSClient", "org.apache.hadoop.ipc")
    ):
        return None
    place = settings.checkpoint
    s3 = _S3A_CALL.search(text)  # the call and the SDK's reason, without Spark's wrapping
    said = f"{s3.group(1)}: {s3.group(2)}" if s3 else _after_wrapper(gone.group(0).strip())
    return CheckpointStoreLostError(
        f"{said[:400]} [playground: the {place.kind} checkpoint "
        f"store at {place.store_url} stopped answering while the query ran, and its client gave up. "
        f"The checkpoint is intact: start the app again once the store answers (--supervise "
        f"does it for you)]"
    )


def _after_wrapper(line: str) -> str:
    """Spark's STREAM_FAILED line without its query ids: the cause it names, up to its link."""
    said = line.split("terminated with exception: ", 1)[-1]
    return said.split("; For more details see", 1)[0][:300]


def state_unloadable(text: str, message: str, settings: SparkAppSettings) -> SparkAppError | None:
    """State Spark cannot load, named by Spark's own condition (`message`: the error's lines
    without the Java stack), with the file and its repair where the app can find them."""
    state_error = _STATE_CONDITION.search(message)
    if state_error is None:
        return None
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
            f"the checkpoint in {settings.checkpoint.folder} cannot be used: "
            f"{state_error.group(0)[:200]} caused by {checksum.group(0).split(']')[0]}] "
            f"{checksum.group(1).removeprefix('file:')} does not match Spark's "
            f"checksum beside it (`.crc`). {_checksum_advice(checksum.group(1))}"
        )
    # A state file Spark cannot read surfaces inside the batch (foreachBatch's job), wrapped
    # in FOREACH_BATCH_USER_FUNCTION_ERROR: name Spark's own condition, not the wrapper
    # (looked for before the wrapper's first line, which would hide it: the museum's
    # SPARK-54307 exhibit on 4.0 and 4.1).
    return CheckpointError(
        f"the checkpoint in {settings.checkpoint.folder} cannot be used: "
        f"{state_error.group(0)[:600]}. Restore the missing state file, or "
        f"delete the folder to start over (the count restarts)."
    )


def _torn_state_file(settings: SparkAppSettings) -> RestartBlocker | None:
    """A state file of a local checkpoint cut short by a crash of the machine, if any."""
    if not settings.checkpoint.is_local:
        return None
    try:
        return torn_state_file(read_checkpoint(settings.checkpoint.folder))
    except (CheckpointError, OSError):
        return None  # the failure is explained without it


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


def torn_log_file(text: str) -> TornFileError | None:
    """Spark's failure on a torn offsets/N or commits/N, with the repair for that file."""
    match = _TORN_LOG_FILE.search(text)
    if match is None:
        return None
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
