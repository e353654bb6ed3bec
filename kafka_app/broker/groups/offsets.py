"""Committed consumer-group offsets, kept in an append-only journal that survives kill -9.

Each OffsetCommit appends one JSON line to the journal with one unbuffered write, so once
commit() returns the line is in the OS and outlives the process. On open the journal is replayed
(the last line for a key wins); a torn last line from a crash mid-write is cut off. When the
journal has grown well past the number of live keys it is compacted: the current offsets are
written to a temporary file that is renamed over the journal.

Usage:
    offsets = CommittedOffsets(Path("kafka-data/group-offsets.jsonl"))
    offsets.commit("counter", "events", 0, 42)
    offsets.fetch("counter", "events", 0)   # -> (42, "")
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from types import TracebackType

from kafka_app.broker.errors import OffsetMetadataTooLarge
from kafka_app.broker.storage.atomic_file import write_atomically

__all__ = ["CommittedOffsets", "MAX_METADATA_CHARS", "NO_LEADER_EPOCH"]

_log = logging.getLogger(__name__)

_Key = tuple[str, str, int]  # group, topic, partition
_COMPACT_MIN_LINES = 10_000
_COMPACT_FACTOR = 4
# Kafka's offset.metadata.max.bytes (4096), compared, as Kafka does, with the string's length.
MAX_METADATA_CHARS = 4096
NO_LEADER_EPOCH = -1


class CommittedOffsets:
    """group -> (topic, partition) -> (offset, metadata), persisted to a journal file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._offsets: dict[_Key, tuple[int, str]] = {}
        # The leader epoch each offset was committed with (OffsetCommit v6+); absent = -1.
        self._epochs: dict[_Key, int] = {}
        self._lines = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._replay()
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _replay(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        lines = data.splitlines(keepends=True)
        for number, line in enumerate(lines, start=1):
            entry = _parse(line)
            if entry is not None:
                key, value, epoch = entry
                self._offsets[key] = value
                self._remember_epoch(key, epoch)
                self._lines += 1
            elif number == len(lines):
                _log.warning(
                    "cutting a torn last line off %s: a commit cut short by a crash, "
                    "never acknowledged",
                    self.path,
                )
                os.truncate(self.path, len(data) - len(line))
            else:
                _log.warning("skipping unreadable line %d of %s", number, self.path)

    def commit(
        self,
        group: str,
        topic: str,
        partition: int,
        offset: int,
        metadata: str = "",
        leader_epoch: int = NO_LEADER_EPOCH,
    ) -> None:
        """Record a committed offset; durable against a process kill once this returns."""
        if self._fd is None:
            raise ValueError(f"{self.path} is closed")
        if metadata and len(metadata) > MAX_METADATA_CHARS:
            raise OffsetMetadataTooLarge(
                f"offset metadata for {group} {topic}-{partition} is {len(metadata)} characters; "
                f"offset.metadata.max.bytes is {MAX_METADATA_CHARS}"
            )
        key = (group, topic, partition)
        line = _line(key, (offset, metadata or ""), leader_epoch) + "\n"
        size = os.fstat(self._fd).st_size
        try:
            _write_all(self._fd, line.encode("utf-8"))
        except OSError:
            # Disk full part-way: cut the torn line off, or the next commit's line would be glued
            # to it and both skipped as unreadable on restart.
            os.ftruncate(self._fd, size)
            raise
        self._offsets[key] = (offset, metadata or "")
        self._remember_epoch(key, leader_epoch)
        self._lines += 1
        if self._lines > max(_COMPACT_MIN_LINES, _COMPACT_FACTOR * len(self._offsets)):
            self._compact()

    def fetch(self, group: str, topic: str, partition: int) -> tuple[int, str] | None:
        """(offset, metadata) last committed by the group for this partition, or None."""
        return self._offsets.get((group, topic, partition))

    def leader_epoch(self, group: str, topic: str, partition: int) -> int:
        """The leader epoch committed with the offset (OffsetFetch returns it), or -1."""
        return self._epochs.get((group, topic, partition), NO_LEADER_EPOCH)

    def _remember_epoch(self, key: _Key, epoch: int) -> None:
        if epoch == NO_LEADER_EPOCH:
            self._epochs.pop(key, None)
        else:
            self._epochs[key] = epoch

    def committed(self, group: str) -> dict[tuple[str, int], tuple[int, str]]:
        """Everything the group has committed: (topic, partition) -> (offset, metadata)."""
        return {
            (topic, partition): value
            for (g, topic, partition), value in self._offsets.items()
            if g == group
        }

    def delete_topic(self, topic: str) -> int:
        """Forget every group's offsets of a deleted topic, as Kafka's coordinator does when a
        topic is deleted; returns how many were dropped. Rewrites the journal at once, so a
        topic created again under the same name never inherits them, even after a crash."""
        doomed = [key for key in self._offsets if key[1] == topic]
        for key in doomed:
            del self._offsets[key]
            self._epochs.pop(key, None)
        if doomed:
            self._compact()
        return len(doomed)

    def groups(self) -> list[str]:
        """Every group with at least one committed offset (additive helper for ListGroups)."""
        return sorted({group for group, _, _ in self._offsets})

    def _compact(self) -> None:
        lines = [_line(key, value, self.leader_epoch(*key)) for key, value in self._offsets.items()]
        write_atomically(self.path, "".join(line + "\n" for line in lines))
        if self._fd is not None:
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._lines = len(lines)

    def close(self) -> None:
        """Close the journal; idempotent."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> CommittedOffsets:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _line(key: _Key, value: tuple[int, str], epoch: int) -> str:
    entry: dict[str, object] = {"g": key[0], "t": key[1], "p": key[2], "o": value[0], "m": value[1]}
    if epoch != NO_LEADER_EPOCH:
        entry["e"] = epoch  # journals written before leader epochs were kept simply lack it
    return json.dumps(entry, separators=(",", ":"))


def _parse(line: bytes) -> tuple[_Key, tuple[int, str], int] | None:
    """One journal line, or None if it is torn or not ours (replay stops there)."""
    if not line.endswith(b"\n"):
        return None
    try:
        entry = json.loads(line)
        return (
            (entry["g"], entry["t"], int(entry["p"])),
            (int(entry["o"]), str(entry["m"])),
            int(entry.get("e", NO_LEADER_EPOCH)),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
