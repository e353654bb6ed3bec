"""A pure reader of a Structured Streaming checkpoint folder: no Spark, just the files.

Spark writes `offsets/<N>` (the end offsets of batch N) before running batch N and
`commits/<N>` after its output. So the folder alone says which batch was last finished, which
one a restart will replay, and from which Kafka offsets. The inspector, the scenarios' charts and
the tests read checkpoints through this module.

Usage:
    info = read_checkpoint(Path("checkpoints"))
    print(info.query_id, info.last_committed_id, info.pending_id, info.resume_from)
    for batch in committed_batches(Path("checkpoints")): print(batch.batch_id, batch.end)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spark_app.checkpoint.torn import torn_file_error
from spark_app.errors import CheckpointError
from spark_app.offsets import Offsets, parse_offsets

__all__ = [
    "BatchOffsets",
    "CheckpointInfo",
    "read_checkpoint",
    "committed_batches",
    "read_offset_file",
    "read_log_file",
    "read_query_id",
]


@dataclass(frozen=True)
class BatchOffsets:
    """What `offsets/<batch_id>` says: the end offsets of each source after that batch."""

    batch_id: int
    sources: tuple[Offsets | None, ...]
    batch_timestamp_ms: int | None = None
    watermark_ms: int | None = None
    conf: Mapping[str, str] = field(default_factory=dict)
    committed_at_ms: int | None = None  # mtime of commits/<batch_id>, None while pending

    @property
    def end(self) -> Offsets | None:
        """End offsets of the first (for us: the only) source."""
        return self.sources[0] if self.sources else None

    @property
    def end_total(self) -> int | None:
        """The end offsets summed over the partitions: on a topic read from offset 0, every
        message once, the count after this batch. None without an end."""
        return sum(self.end.values()) if self.end else None

    @property
    def committed(self) -> bool:
        return self.committed_at_ms is not None


@dataclass(frozen=True)
class CheckpointInfo:
    """Everything a restart will do, read from the folder."""

    path: Path
    exists: bool
    query_id: str | None = None
    offset_ids: tuple[int, ...] = ()
    commit_ids: tuple[int, ...] = ()
    last_committed: BatchOffsets | None = None
    pending: BatchOffsets | None = None
    initial_offsets: Offsets | None = None
    pending_start: Offsets | None = None

    @property
    def last_committed_id(self) -> int | None:
        return self.last_committed.batch_id if self.last_committed else None

    @property
    def pending_id(self) -> int | None:
        return self.pending.batch_id if self.pending else None

    @property
    def is_new(self) -> bool:
        """True when a start with this folder begins a new query (startingOffsets applies)."""
        return not self.offset_ids

    @property
    def resume_from(self) -> Offsets | None:
        """The offsets the next batch a restart runs starts reading at.

        With a pending batch that is the start of its range (it is replayed exactly); otherwise
        the end of the last committed batch.
        """
        if self.pending is not None:
            return self.pending_start
        return self.last_committed.end if self.last_committed else self.initial_offsets

    @property
    def conf(self) -> Mapping[str, str]:
        latest = self.pending or self.last_committed
        return latest.conf if latest else {}


def read_log_file(path: Path) -> tuple[str, list[str]]:
    """Split one of Spark's metadata log files into its version line and the lines after it.

    Some sources write a zero byte before `v1` (SPARK-19517), so leading NULs are dropped.
    """
    try:
        text = path.read_bytes().lstrip(b"\x00").decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CheckpointError(
            f"cannot read {path}: {err}. If the checkpoint is damaged, "
            f"delete the folder to start over (state is lost)."
        ) from err
    if not text.strip():
        # Zero bytes, or only the zeros some file systems show after a crash: the name of a
        # renamed file reached the disk, its data did not.
        raise torn_file_error(path, "is empty")
    lines = text.split("\n")
    version = lines[0].strip()
    if not (version.startswith("v") and version[1:].isdigit()):
        raise CheckpointError(
            f"{path} does not start with a version line like v1 (found "
            f"{version[:20]!r}). It was not written by Spark, or is damaged; "
            f"delete the checkpoint folder to start over."
        )
    return version, lines[1:]


def _json_line(path: Path, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise torn_file_error(
            path, f"holds a line that is not JSON ({line[:40]!r}), as if cut short"
        ) from err


def _source_offsets(path: Path, line: str) -> Offsets | None:
    if line.strip() == "-":
        return None
    try:
        return parse_offsets(_json_line(path, line))
    except ValueError as err:
        raise CheckpointError(
            f"{path}: source offsets are not in the Kafka shape "
            f"{{topic: {{partition: offset}}}} ({err}). Was the checkpoint "
            f"written by another kind of source?"
        ) from err


def read_offset_file(path: Path, committed_at_ms: int | None = None) -> BatchOffsets:
    """Parse `offsets/<N>`: version, batch metadata JSON, then one line per source."""
    _, lines = read_log_file(path)
    lines = [line for line in lines if line.strip()]
    if not lines:
        raise torn_file_error(path, "has its version line but no batch metadata: it was cut short")
    meta = _json_line(path, lines[0])
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: batch metadata is not a JSON object")
    conf = meta.get("conf") or {}
    return BatchOffsets(
        batch_id=int(path.name),
        sources=tuple(_source_offsets(path, line) for line in lines[1:]),
        batch_timestamp_ms=meta.get("batchTimestampMs"),
        watermark_ms=meta.get("batchWatermarkMs"),
        conf={str(k): str(v) for k, v in conf.items()},
        committed_at_ms=committed_at_ms,
    )


def _batch_ids(folder: Path) -> tuple[int, ...]:
    # Spark keeps `.N.crc` checksums and `.tmp` files beside the batch files: only bare numbers count.
    if not folder.is_dir():
        return ()
    return tuple(sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit() and p.is_file()))


def read_query_id(path: Path) -> str | None:
    """The query id in `<checkpoint>/metadata`, None before the query first started."""
    metadata = path / "metadata"
    if not metadata.is_file():
        return None
    text = metadata.read_bytes().lstrip(b"\x00").decode("utf-8", errors="replace").strip()
    value = _json_line(metadata, text.splitlines()[0] if text else "{}")
    return value.get("id") if isinstance(value, dict) else None


def _initial_offsets(path: Path) -> Offsets | None:
    initial = path / "sources" / "0" / "0"
    if not initial.is_file():
        return None
    _, lines = read_log_file(initial)
    lines = [line for line in lines if line.strip()]
    return _source_offsets(initial, lines[0]) if lines else None


def _mtime_ms(path: Path) -> int:
    return int(path.stat().st_mtime * 1000)


def read_checkpoint(path: Path) -> CheckpointInfo:
    """Read the folder; a missing folder gives `exists=False`, a damaged one a CheckpointError."""
    path = Path(path)
    if not path.exists():
        return CheckpointInfo(path=path, exists=False)
    if not path.is_dir():
        raise CheckpointError(f"{path} is not a folder; pass --checkpoint-dir a folder")
    offset_ids = _batch_ids(path / "offsets")
    commit_ids = _batch_ids(path / "commits")
    committed = set(commit_ids)
    last_committed = pending = None
    pending_start: Offsets | None = None
    if commit_ids and commit_ids[-1] in offset_ids:
        last_id = commit_ids[-1]
        last_committed = read_offset_file(
            path / "offsets" / str(last_id), _mtime_ms(path / "commits" / str(last_id))
        )
    if commit_ids:
        _check_commit(path / "commits" / str(commit_ids[-1]))
    initial = _initial_offsets(path)
    if offset_ids and offset_ids[-1] not in committed:
        pending = read_offset_file(path / "offsets" / str(offset_ids[-1]))
        previous = pending.batch_id - 1
        if previous in offset_ids:
            pending_start = read_offset_file(path / "offsets" / str(previous)).end
        else:
            pending_start = initial
    return CheckpointInfo(
        path=path,
        exists=True,
        query_id=read_query_id(path),
        offset_ids=offset_ids,
        commit_ids=commit_ids,
        last_committed=last_committed,
        pending=pending,
        initial_offsets=initial,
        pending_start=pending_start,
    )


def _check_commit(path: Path) -> None:
    """The newest `commits/N`, which a restart reads to know whether batch N finished: a
    version line and a JSON object, or a TornFileError saying what to do."""
    _, lines = read_log_file(path)
    lines = [line for line in lines if line.strip()]
    if not lines:
        raise torn_file_error(path, "has its version line but no metadata: it was cut short")
    _json_line(path, lines[0])


def committed_batches(path: Path) -> list[BatchOffsets]:
    """Every committed batch still in the folder (Spark keeps the last 100), oldest first."""
    path = Path(path)
    offsets = set(_batch_ids(path / "offsets"))
    return [
        read_offset_file(path / "offsets" / str(n), _mtime_ms(path / "commits" / str(n)))
        for n in _batch_ids(path / "commits")
        if n in offsets
    ]
