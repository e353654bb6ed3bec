"""`python -m spark_app repartition-state N`: a stopped query's state spread over N partitions.

A checkpoint pins `spark.sql.shuffle.partitions`, and with it the number of partitions its state
is kept in: a restart with another `--shuffle-partitions` keeps the old number (query-changes).
PySpark 4.2.0 brought the first supported way to change it, offline:
`spark._streamingCheckpointManager.repartition(path, n)`. It is private API there (the leading
underscore; Spark Classic only, not Spark Connect; "evolving" in its docstring), and this
module is the only place the app calls it. Spark reads the state the last committed batch left,
writes it again spread over n partitions as one new batch (its offsets are the last batch's,
with n in their conf, so it reads no input) and commits that batch; the next start goes on from
there with n state partitions.

What it refused, as run (29 Nov 2026, PySpark 4.2.0), and what the app's line then says:
- the HDFS-backed state store, the app's default (UNSUPPORTED_PROVIDER): only RocksDB's state is
  repartitioned, the counter's applyInPandasWithState and an aggregation alike;
- a checkpoint whose last batch was planned and never committed, as a kill -9 leaves it
  (LAST_BATCH_FAILED): one run with `--trigger available-now` finishes that batch, then stops;
- the number the state has already (SHUFFLE_PARTITIONS_ALREADY_MATCH): the state is as asked,
  so the app says so and exits 0, nothing written.
Refused by the app itself, before Spark starts: a PySpark before 4.2, and an app that runs on
the checkpoint (Spark does not look; its docstring warns of "undefined behavior or checkpoint
corruption").

A refusal that comes late leaves a trace: with the HDFS-backed store, 4.2.0 wrote the new
batch's offsets file before it found it could not repartition that store, and every start of the
query then stopped on STREAMING_UNFINISHED_REPARTITION_DETECTED, a batch no retry could finish.
So after a failed repartition the app removes the offsets files it planned that no commit
follows, and the query starts as before (on a local checkpoint; a store's is left as Spark left
it).

A finding of those runs: in a session that has run no streaming query, 4.2.0's repartition fails
with CANNOT_LOAD_STATE_STORE.UNCATEGORIZED (RpcEndpointNotFoundException: StateStoreCoordinator)
and leaves its batch planned and uncommitted. The coordinator is started by the session's
StreamingQueryManager, which nothing had asked for yet; `spark.streams` asks for it first.

Usage: `print(repartition_state(settings, 4, running=running_apps))`
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import (
    AppRunningError,
    RepartitionLastBatchFailedError,
    RepartitionUnavailableError,
    RepartitionUnsupportedOperatorError,
    RepartitionUnsupportedProviderError,
    SparkAppError,
    StateRepartitionError,
)
from spark_app.runtime.spark_version import check_spark_version
from spark_app.settings import SparkAppSettings

__all__ = [
    "FIRST_LINE",
    "LINES_WITH_IT",
    "ALREADY",
    "refusal_in",
    "repartition_state",
    "unavailable_on",
]

# The first PySpark line with offline state repartition, and the lines that have it (4.3.0 as
# run here: the same private call).
FIRST_LINE = (4, 2)
LINES_WITH_IT = ("4.2", "4.3")
# Spark's class for a number the state has already: a no-op, not a failure, for a user.
ALREADY = "STATE_REPARTITION_INVALID_CHECKPOINT.SHUFFLE_PARTITIONS_ALREADY_MATCH"
_SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"

# Spark's class and message as PySpark's exception text has them: `[CLASS] message SQLSTATE: …`.
_SPARK_ERROR = re.compile(
    r"\[((?:STATE_REPARTITION_\w+|STREAMING_UNFINISHED_REPARTITION_DETECTED)(?:\.\w+)?)\]"
    r" ?([^\n]*?)(?: ?SQLSTATE: \w+)?(?:\n|$)"
)

# What the app adds to Spark's words, per refusal ([playground: …], as the app's other lines).
_ADVICE: dict[str, tuple[type[SparkAppError], str]] = {
    RepartitionLastBatchFailedError.token: (
        RepartitionLastBatchFailedError,
        "its last batch was planned (offsets/) and never committed: a kill -9, a crash, or a "
        "stop in the middle of a batch. Run the app once with --trigger available-now, which "
        "finishes that batch and what Kafka holds and then stops; repartition after it",
    ),
    RepartitionUnsupportedProviderError.token: (
        RepartitionUnsupportedProviderError,
        "only RocksDB's state can be repartitioned, and a checkpoint keeps the store that "
        "wrote it (state-stores): a query started with --state-store rocksdb can be; this "
        "one, only on a new checkpoint",
    ),
    RepartitionUnsupportedOperatorError.token: (
        RepartitionUnsupportedOperatorError,
        "Spark cannot repartition this query's state; its shuffle partitions stay as the "
        "checkpoint pinned them",
    ),
}


def repartition_state(
    settings: SparkAppSettings, partitions: int, running: Callable[[Path], list[int]]
) -> str:
    """Repartition the state of `settings`' checkpoint to `partitions`; the line saying what
    was done. Raises one of the app's errors for what was refused (the app's line)."""
    version = check_spark_version()
    if unavailable_on(version):
        raise RepartitionUnavailableError(
            f"PySpark {version} has no offline state repartition: it came with PySpark 4.2.0 "
            f"(spark._streamingCheckpointManager, private API), and the "
            f"{' and '.join(LINES_WITH_IT)} lines have it. Run this command with one of them, "
            f"e.g. in the project's environment: `uv run python -m spark_app repartition-state "
            f"{partitions}`; nothing was changed."
        )
    place = settings.checkpoint
    pids = [p for p in running(place.folder) if p not in _ancestors()]
    if pids:
        raise AppRunningError(
            f"the Spark app runs on {place.folder} (pid {', '.join(map(str, pids))}): stop it "
            f"first (Ctrl-C), then repartition; Spark does not check, and a running query "
            f"would write into the batch it writes."
        )
    before = _last_committed(place.folder) if place.is_local else None
    if place.is_local and before is None:
        raise StateRepartitionError(
            f"{place.folder} holds no committed batch: nothing to repartition (a query must "
            f"have committed one; name the app's checkpoint with --checkpoint-dir)."
        )
    planned_before = set(read_checkpoint(place.folder).offset_ids) if place.is_local else set()
    try:
        _repartition(settings, partitions)
    except Exception as error:
        removed = _remove_planned(place.folder, planned_before) if place.is_local else []
        refusal = refusal_in(str(error), removed)
        if refusal is None:
            raise
        if ALREADY in str(refusal):
            return (
                f"The state in {place.location} has {partitions} partitions already: "
                f"nothing written."
            )
        raise refusal from None
    return _done_line(place.location, partitions, before, _last_committed(place.folder))


def unavailable_on(version: str) -> bool:
    """True for a PySpark line without offline state repartition (before 4.2)."""
    major, minor = version.split(".")[:2]
    return (int(major), int("".join(c for c in minor if c.isdigit()) or 0)) < FIRST_LINE


def refusal_in(text: str, removed: list[str] | None = None) -> SparkAppError | None:
    """The app's error for Spark's refusal in an exception's text (its class and words first,
    the app's advice after, and the planned batch it removed); None when the text holds no
    repartition error of Spark's."""
    match = _SPARK_ERROR.search(text)
    if match is None:
        return None
    spark_class, words = match.group(1), " ".join(match.group(2).split())
    cls, advice = _ADVICE.get(spark_class, (StateRepartitionError, ""))
    notes = [advice] if advice else []
    if removed:
        notes.append(
            f"the batch Spark planned for it ({', '.join(removed)}) was removed, so the "
            f"checkpoint restarts as before (left, every start stops on "
            f"STREAMING_UNFINISHED_REPARTITION_DETECTED)"
        )
    said = f"{words} [playground: {'; '.join(notes)}]" if notes else words
    return cls(said if cls is not StateRepartitionError else f"[{spark_class}] {said}")


def _repartition(settings: SparkAppSettings, partitions: int) -> None:
    from spark_app.runtime.session import SparkSessionResource  # pulls in pyspark

    # No Kafka is read: the session needs no connector, only the checkpoint's place.
    batch = replace(settings, source="python", ui=False)
    with SparkSessionResource(batch) as spark:
        # The state store's coordinator lives in the session's StreamingQueryManager: without
        # asking for it first, 4.2.0's repartition fails to load the state (see the docstring).
        spark.streams.active  # noqa: B018
        # Private API of PySpark 4.2 (Spark Classic only): the only call of it in the app.
        spark._streamingCheckpointManager.repartition(settings.checkpoint.location, partitions)


def _remove_planned(folder: Path, planned_before: set[int]) -> list[str]:
    """Remove what a failed repartition left planned: the offsets files it wrote that no commit
    follows (with Hadoop's hidden checksums). Left in place, the next start of the query stops
    on STREAMING_UNFINISHED_REPARTITION_DETECTED, and a store Spark cannot repartition could
    never finish it (as run on 4.2.0 with the HDFS-backed store)."""
    info = read_checkpoint(folder)
    removed = []
    for batch in sorted(set(info.offset_ids) - planned_before - set(info.commit_ids)):
        for name in (str(batch), f".{batch}.crc"):
            (folder / "offsets" / name).unlink(missing_ok=True)
        removed.append(f"offsets/{batch}")
    return removed


def _last_committed(folder: Path) -> tuple[int, str | None] | None:
    """The last committed batch of a local checkpoint and its shuffle partitions, or None."""
    info = read_checkpoint(folder)
    batch = info.last_committed
    if batch is None:
        return None
    return batch.batch_id, batch.conf.get(_SHUFFLE_PARTITIONS)


def _done_line(
    location: str,
    partitions: int,
    before: tuple[int, str | None] | None,
    after: tuple[int, str | None] | None,
) -> str:
    if before is None or after is None:  # a store's checkpoint: not read here
        return (
            f"Repartitioned the state in {location} to {partitions} partitions: a new batch "
            f"holds it; the next start goes on from there."
        )
    return (
        f"Repartitioned the state in {location} from {before[1] or '?'} to {partitions} "
        f"partitions: batch {after[0]} holds it (offsets/{after[0]}, commits/{after[0]}, no "
        f"input read); the next start goes on from batch {after[0] + 1}."
    )


def _ancestors() -> set[int]:
    """This process and the ones that started it (`uv run` runs the command as its child, and
    its own command line names the checkpoint too): none of them is an app to wait for."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state is the ppid
    return found
