"""One segment file of a partition log, with the in-memory index that makes reads one `pread`.

A segment is `<20-digit base offset>.log` holding v2 record batches back to back, exactly as Kafka
stores them. Instead of Kafka's sparse `.index`/`.timeindex` files we keep, per batch, its file
position, last offset and max timestamp in memory, and rebuild that by scanning the file on start.
The scan is also crash recovery: after an unclean stop, batches written since the last flush are
CRC-checked and a torn tail of the active segment (a kill -9 mid-write) is truncated away.

Usage: `seg = Segment.create(folder, 0); seg.append(data, headers, now_ms); seg.read(0, 1 << 20)`
"""

from __future__ import annotations

import logging
import mmap
import os
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from kafka_app.broker.errors import CorruptRecord, StorageCorrupt
from kafka_app.broker.storage.record_batch import BatchHeader, check_crc, parse_header

__all__ = ["Segment", "segment_file_name", "LOG_SUFFIX", "DELETED_SUFFIX"]

_log = logging.getLogger(__name__)

LOG_SUFFIX = ".log"
DELETED_SUFFIX = ".deleted"
NO_TIMESTAMP = -1


def segment_file_name(base_offset: int) -> str:
    """Kafka's naming: the base offset zero-padded to 20 digits, so names sort like offsets."""
    return f"{base_offset:020d}{LOG_SUFFIX}"


class Segment:
    """A segment file plus, per batch, its position, last offset and max timestamp."""

    def __init__(self, path: Path, base_offset: int, created_ms: int) -> None:
        self.path = path
        self.base_offset = base_offset
        self.size = 0
        self._positions = array("q")
        self._last_offsets = array("q")
        self._max_timestamps = array("q")
        self.max_timestamp = NO_TIMESTAMP
        # Kafka rolls on time against the first batch's max timestamp ("rolling based timestamp").
        self.rolling_timestamp = NO_TIMESTAMP
        # Stands in for the largest timestamp when no batch carried one, as Kafka uses the file mtime.
        self.last_modified_ms = created_ms
        # Kafka rolls a segment whose first batch has no timestamp by its age instead.
        self.created_ms = created_ms
        self._fd: int | None = None
        self.truncated_bytes = 0  # set by recover(): bytes cut off a corrupt tail

    # ---- opening -------------------------------------------------------------------------------

    @classmethod
    def create(cls, folder: Path, base_offset: int, now_ms: int) -> Segment:
        """A new, empty segment file, opened for appending."""
        segment = cls(folder / segment_file_name(base_offset), base_offset, now_ms)
        segment._fd = os.open(
            segment.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC, 0o644
        )
        return segment

    @classmethod
    def recover(
        cls,
        path: Path,
        verify: bool = True,
        may_truncate: bool = True,
        visit: Callable[[BatchHeader], None] | None = None,
    ) -> Segment:
        """Open an existing segment, rebuilding its index from the batch headers.

        `verify` also checks every batch's CRC (the part of the log written since the last flush,
        after an unclean stop). A bad batch is cut off when `may_truncate` (the active segment's
        tail: a write torn by a kill -9); anywhere else it raises StorageCorrupt naming the file,
        because cutting there would throw away the acknowledged records of later segments.
        `visit` sees each valid batch header in order (producer state is rebuilt from them).
        """
        base_offset = int(path.name[: -len(LOG_SUFFIX)])
        segment = cls(path, base_offset, os.stat(path).st_mtime_ns // 1_000_000)
        valid, problem = segment._scan(verify, visit)
        file_size = os.path.getsize(path)
        if problem is not None and not may_truncate:
            raise StorageCorrupt(
                f"{path} is damaged at byte {valid} ({problem}) and later data depends on it; "
                f"the broker will not delete acknowledged records to start: move the partition "
                f"folder aside or restore the file from a backup"
            )
        if valid < file_size:
            _log.warning(
                "truncating %s from %d to %d bytes: the tail is not a whole valid batch "
                "(most likely a write cut off by a crash): %s",
                path,
                file_size,
                valid,
                problem,
            )
            os.truncate(path, valid)
        segment.size = valid
        segment.truncated_bytes = file_size - valid
        return segment

    def _scan(
        self, verify: bool, visit: Callable[[BatchHeader], None] | None
    ) -> tuple[int, str | None]:
        """Index every valid batch; return the byte length of the valid prefix and what ended it."""
        file_size = os.path.getsize(self.path)
        if file_size == 0:
            return 0, None
        with (
            open(self.path, "rb") as file,
            mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            view = memoryview(data)
            try:
                return self._index_valid_prefix(view, verify, visit)
            finally:
                view.release()

    def _index_valid_prefix(
        self, view: memoryview, verify: bool, visit: Callable[[BatchHeader], None] | None
    ) -> tuple[int, str | None]:
        position = 0
        expected = self.base_offset
        while position < len(view):
            try:
                header = parse_header(view, position)
                if verify:
                    check_crc(view, header)
            except CorruptRecord as error:
                # Keep the text, not the error: its traceback pins views of the mmap we must close.
                return position, str(error)
            if header.base_offset != expected:
                return position, f"batch has offset {header.base_offset}, expected {expected}"
            self._index(header, position)
            if visit is not None:
                visit(header)
            position += header.size
            expected = header.last_offset + 1
        return position, None

    def flush(self) -> None:
        """fsync the file: after this its batches survive a power cut, so recovery can skip them."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    # ---- writing -------------------------------------------------------------------------------

    def append(
        self, data: bytes | bytearray | memoryview, headers: Sequence[BatchHeader], now_ms: int
    ) -> None:
        """Write whole batches, offsets already stamped; `headers` positions are relative to `data`.

        One unbuffered write: once it returns the bytes are in the OS page cache, which outlives
        a kill -9 of this process.
        """
        fd = self._writable_fd()
        view = memoryview(data)
        written = 0
        try:
            while written < len(view):
                written += os.write(fd, view[written:])
        except OSError:
            # Disk full after part of the bytes: cut them off again, or the next append would
            # land behind half a batch and every later read and restart would see garbage.
            os.ftruncate(fd, self.size)
            raise
        start = self.size
        for header in headers:
            self._index(header, start + header.position)
        self.size += len(view)
        self.last_modified_ms = now_ms

    def truncate_to(self, size: int) -> None:
        """Cut the file and the index back to `size` bytes, a batch boundary (undoing an append
        whose produce failed later on, so no record the producer was not told about stays)."""
        os.truncate(self.path, size)
        keep = bisect_left(self._positions, size)
        del self._positions[keep:], self._last_offsets[keep:], self._max_timestamps[keep:]
        self.size = size
        self.max_timestamp = max(self._max_timestamps, default=NO_TIMESTAMP)
        if not self._positions:
            self.rolling_timestamp = NO_TIMESTAMP

    def remove(self) -> None:
        """Close and unlink the file (a segment whose roll was undone)."""
        self.close()
        self.path.unlink(missing_ok=True)

    def _index(self, header: BatchHeader, position: int) -> None:
        self._positions.append(position)
        self._last_offsets.append(header.last_offset)
        self._max_timestamps.append(header.max_timestamp)
        if len(self._positions) == 1:
            self.rolling_timestamp = header.max_timestamp
        if header.max_timestamp > self.max_timestamp:
            self.max_timestamp = header.max_timestamp

    def open_for_append(self) -> None:
        """Keep a descriptor open: this is the active segment, written and read the most."""
        self._writable_fd()

    def _writable_fd(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        return self._fd

    # ---- reading -------------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        return not self._positions

    @property
    def next_offset(self) -> int:
        """The offset the next appended record would get if it landed in this segment."""
        return self._last_offsets[-1] + 1 if self._last_offsets else self.base_offset

    @property
    def largest_timestamp(self) -> int:
        """What retention.ms compares with now: the largest record timestamp, else last write time."""
        return self.max_timestamp if self.max_timestamp >= 0 else self.last_modified_ms

    def read(self, offset: int, max_bytes: int) -> bytes:
        """Whole batches from the one holding `offset`, within max_bytes but at least one batch."""
        index = bisect_left(self._last_offsets, offset)
        if index >= len(self._positions):
            return b""
        start = self._positions[index]
        end = self._end_within(index, start + max(max_bytes, 0))
        return self._pread(start, end - start)

    def _end_within(self, first: int, limit: int) -> int:
        """The furthest batch boundary <= limit after batch `first` (at least the end of `first`)."""
        if self.size <= limit:
            return self.size
        # positions[k] is where batch k starts, i.e. where batch k-1 ends.
        boundary = bisect_right(self._positions, limit, lo=first + 1) - 1
        if boundary > first:
            return self._positions[boundary]
        return self._positions[first + 1] if first + 1 < len(self._positions) else self.size

    def _pread(self, position: int, length: int) -> bytes:
        if self._fd is not None:
            return os.pread(self._fd, length, position)
        # Sealed segments are opened per read so thousands of small segments cost no descriptors.
        fd = os.open(self.path, os.O_RDONLY)
        try:
            return os.pread(fd, length, position)
        finally:
            os.close(fd)

    def batches_from_timestamp(
        self, timestamp_ms: int, from_offset: int = 0
    ) -> Iterator[tuple[int, bytes]]:
        """(base offset, bytes) of each batch whose max timestamp >= timestamp_ms, from the batch
        holding `from_offset` on, lazily.

        Rarely used (ListOffsets by time), so it reads batch by batch; the caller stops early.
        """
        first = bisect_left(self._last_offsets, from_offset)
        for index in range(first, len(self._max_timestamps)):
            if self._max_timestamps[index] >= timestamp_ms:
                base = self._last_offsets[index - 1] + 1 if index else self.base_offset
                start = self._positions[index]
                end = self._positions[index + 1] if index + 1 < len(self._positions) else self.size
                yield base, self._pread(start, end - start)

    # ---- lifecycle -----------------------------------------------------------------------------

    def seal(self) -> None:
        """Stop appending here: a newer segment took over. Reads keep working."""
        self.close()

    def close(self) -> None:
        """Release the file descriptor; idempotent."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def mark_deleted(self) -> Path:
        """Rename to `*.log.deleted` (as Kafka does) so the file is gone from the log at once."""
        self.close()
        target = self.path.with_name(self.path.name + DELETED_SUFFIX)
        os.replace(self.path, target)
        return target

    def __repr__(self) -> str:
        return (
            f"Segment({self.path.name}, offsets {self.base_offset}..{self.next_offset - 1}, "
            f"{self.size} bytes)"
        )
