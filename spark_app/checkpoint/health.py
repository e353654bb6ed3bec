"""The files a restart needs: which ones Spark will miss, and the error it will then raise.

`inspect` reads offsets and commits to say where a restart resumes; that is only true if Spark
can start from the folder at all. Two kinds of damage stop it before any Kafka offset matters:

- `metadata` gone while `offsets/` or `commits/` hold batches. Since Spark 4.2 the restart
  fails with STREAMING_CHECKPOINT_MISSING_METADATA_FILE (it would otherwise start under a new
  query id, and an idempotent sink keyed on that id could write twice); older Spark starts
  silently under a new id. `spark.sql.streaming.checkpoint.verifyMetadataExists.enabled=false`
  turns the check off.
- a state file gone. The HDFS-backed state store (Spark's default, and this app's) rebuilds
  version V (= last committed batch + 1) from the newest `V'.snapshot` at or below V plus every
  `v.delta` after it; one missing delta is CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS.
- a state file cut short by a crash of the machine (its lz4 stream ends early): Spark 4.2
  fails the first batch with CANNOT_LOAD_STATE_STORE.UNCATEGORIZED, without naming the file
  (found by storage-outage); `torn_state_file` names it and the repair.

Usage: `for blocker in restart_blockers(Path("checkpoints")): print(blocker.sentence())`
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spark_app.checkpoint.lz4_block import ends_cleanly
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint
from spark_app.runtime.spark_version import installed_spark_version

__all__ = ["RestartBlocker", "restart_blockers", "spark_checks_metadata", "torn_state_file"]

HDFS_PROVIDER = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
PROVIDER_CONF = "spark.sql.streaming.stateStore.providerClass"


@dataclass(frozen=True)
class RestartBlocker:
    """One file Spark needs and will not find, with the error it raises and the way out."""

    condition: str
    missing: str
    remedy: str
    problem: str = "is missing"

    def sentence(self) -> str:
        return (
            f"a restart will fail with {self.condition}: {self.missing} {self.problem}. "
            f"{self.remedy}"
        )


def spark_checks_metadata(spark_version: str) -> bool:
    """True for Spark 4.2 and later, which refuse a checkpoint whose metadata file is gone."""
    major, minor = (int(part) for part in spark_version.split(".")[:2])
    return (major, minor) >= (4, 2)


def restart_blockers(checkpoint: Path, spark_version: str | None = None) -> list[RestartBlocker]:
    """Every missing file that stops a restart; empty for a new or intact checkpoint."""
    info = read_checkpoint(checkpoint)
    if not info.exists or info.is_new:
        return []
    blockers = _missing_metadata(info, spark_version or installed_spark_version())
    blockers += _missing_state_files(info)
    torn = torn_state_file(info)
    if torn is not None:
        blockers.append(torn)
    return blockers


def _missing_metadata(info: CheckpointInfo, spark_version: str) -> list[RestartBlocker]:
    if (info.path / "metadata").is_file() or not spark_checks_metadata(spark_version):
        return []
    return [
        RestartBlocker(
            "STREAMING_CHECKPOINT_MISSING_METADATA_FILE",
            f"{info.path / 'metadata'} (the query id)",
            "Restore the file from a backup, or start over on a new checkpoint folder "
            "(state is lost); Spark before 4.2 would start under a new query id instead.",
        )
    ]


def _missing_state_files(info: CheckpointInfo) -> list[RestartBlocker]:
    if info.last_committed is None or info.conf.get(PROVIDER_CONF, HDFS_PROVIDER) != HDFS_PROVIDER:
        return []
    version = info.last_committed.batch_id + 1
    missing = [path for store in _state_stores(info) for path in _missing_deltas(store, version)]
    if not missing:
        return []
    # Spark stops at the first file it cannot read; naming that one is enough to act on.
    return [
        RestartBlocker(
            "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS",
            str(missing[0]),
            "The count cannot be rebuilt without it: restore it, or start over on a new "
            "checkpoint folder (the count restarts at 0).",
        )
    ]


def _state_stores(info: CheckpointInfo) -> list[Path]:
    # The count is the query's only stateful operator (0); it has one store per shuffle
    # partition, and the checkpoint pins their number in every offsets file.
    partitions = int(info.conf.get("spark.sql.shuffle.partitions", "1"))
    return [info.path / "state" / "0" / str(partition) for partition in range(partitions)]


def _missing_deltas(store: Path, version: int) -> list[Path]:
    """The deltas between the newest snapshot at or below `version` and `version` that are gone."""
    snapshots = [
        int(p.name.split(".")[0])
        for p in store.glob("*.snapshot")
        if p.name.split(".")[0].isdigit()
    ]
    base = max((v for v in snapshots if v <= version), default=0)
    return [
        store / f"{v}.delta"
        for v in range(base + 1, version + 1)
        if not (store / f"{v}.delta").is_file()
    ]


def torn_state_file(info: CheckpointInfo) -> RestartBlocker | None:
    """The first state file the next batch loads that is cut short (an lz4 stream without its
    end), with the repair: run the batch that wrote it again."""
    if info.last_committed is None or info.conf.get(PROVIDER_CONF, HDFS_PROVIDER) != HDFS_PROVIDER:
        return None
    version = info.last_committed.batch_id + 1
    for store in _state_stores(info):
        for path in _loaded_files(store, version):
            if ends_cleanly(path.read_bytes()) is False:
                return RestartBlocker(
                    "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED",
                    str(path),
                    _state_repair(info, path),
                    problem="is cut short (a write torn by a crash of the machine)",
                )
    return None


def _state_repair(info: CheckpointInfo, path: Path) -> str:
    written_by = int(path.name.split(".")[0]) - 1  # batch N writes version N + 1
    if info.last_committed is None or written_by != info.last_committed.batch_id:
        return (
            "Restore it from a copy, or start over on a new checkpoint folder (the count "
            "restarts at 0)."
        )
    later = [n for n in info.offset_ids if n > written_by]
    offsets = f", offsets/{', offsets/'.join(str(n) for n in later)}" if later else ""
    return (
        f"Run batch {written_by} again: delete {path.name}, commits/{written_by}{offsets} "
        f"(each with its .crc); Spark loads version {written_by} and writes {path.name} anew "
        f"(an idempotent sink, like this app's exactly-once one, writes nothing twice)."
    )


def _loaded_files(store: Path, version: int) -> list[Path]:
    """The snapshot and deltas Spark reads to load `version`, oldest first, those present."""
    snapshots = [
        int(p.name.split(".")[0])
        for p in store.glob("*.snapshot")
        if p.name.split(".")[0].isdigit()
    ]
    base = max((v for v in snapshots if v <= version), default=0)
    files = [store / f"{base}.snapshot"] if base else []
    files += [store / f"{v}.delta" for v in range(base + 1, version + 1)]
    return [f for f in files if f.is_file()]
