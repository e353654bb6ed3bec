"""The log of one topic partition: an ordered run of segments, a log start and a log end offset.

Appends go to the newest ("active") segment, which rolls when it would pass segment.bytes or when
the incoming batch is newer than its first batch by more than segment.ms. Reads find the segment
and batch by offset. Retention and DeleteRecords remove whole segments from the front and move
the log start offset, which is checkpointed to a file so it survives a restart.

Usage: `log = PartitionLog.open(folder, "events", 0, TopicConfig(), clock); log.append(batches)`
"""

from __future__ import annotations

import functools
import logging
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, TypeVar

from kafka.errors import UnsupportedCodecError
from kafka.record.default_records import DefaultRecordBatch

from kafka_app.broker.errors import (
    CorruptRecord,
    KafkaStorageError,
    OffsetOutOfRange,
    RecordTooLarge,
)
from kafka_app.broker.storage.atomic_file import write_atomically
from kafka_app.broker.storage.dir_failure import DataDirHealth
from kafka_app.broker.storage.log_recovery import read_checkpoint, recover_segments
from kafka_app.broker.storage.producer_state import ProducerState
from kafka_app.broker.storage.record_batch import (
    BatchHeader,
    check_content,
    iter_batches,
    set_base_offset,
)
from kafka_app.broker.storage.retention import (
    REASON_SIZE,
    REASON_TIME,
    RetentionEvent,
    SegmentSummary,
    expired_by_size,
    expired_by_time,
)
from kafka_app.broker.storage.segment import DELETED_SUFFIX, Segment
from kafka_app.broker.storage.timestamps import stamp_timestamps
from kafka_app.broker.storage.topic_config import LOG_APPEND_TIME, TopicConfig

__all__ = ["PartitionLog", "AppendResult", "LOG_START_CHECKPOINT", "RECOVERY_POINT_CHECKPOINT"]

_log = logging.getLogger(__name__)

LOG_START_CHECKPOINT = "log-start-offset"
RECOVERY_POINT_CHECKPOINT = "recovery-point-offset"
NO_APPEND_TIME = -1
_R = TypeVar("_R")


def _guarded(step: str) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """A PartitionLog method that touches the disk: refused while the data folder is offline, and
    an OSError takes the folder offline and becomes KafkaStorageError (`step` names it in the log).
    The method itself writes to disk before it changes memory, so there is nothing to undo."""

    def decorate(method: Callable[..., _R]) -> Callable[..., _R]:
        @functools.wraps(method)
        def guarded(self: PartitionLog, *args: object, **kwargs: object) -> _R:
            self._health.check()
            try:
                return method(self, *args, **kwargs)
            except OSError as error:
                raise self._failed(error, step) from error

        return guarded

    return decorate


class AppendResult(NamedTuple):
    """Where an append landed, and the broker time stamped on it (-1 unless LogAppendTime)."""

    base_offset: int
    log_append_time_ms: int


class PartitionLog:
    """Segments of one partition; single-threaded, like the server loop that calls it."""

    def __init__(
        self,
        folder: Path,
        topic: str,
        partition: int,
        config: TopicConfig,
        clock: Callable[[], int],
        segments: list[Segment],
        log_start_offset: int,
        health: DataDirHealth | None = None,
    ) -> None:
        self.folder = folder
        # Shared by every log of the data folder: one failed write takes them all offline.
        self._health = health or DataDirHealth(folder)
        self.topic = topic
        self.partition = partition
        self.config = config
        self._clock = clock
        self._segments = segments
        self._bases = [segment.base_offset for segment in segments]
        self._log_start_offset = log_start_offset
        self._pending_deletes: list[tuple[Path, int]] = []
        self._closed = False
        self.producer_state = ProducerState()

    @classmethod
    def open(
        cls,
        folder: Path,
        topic: str,
        partition: int,
        config: TopicConfig,
        clock: Callable[[], int],
        clean: bool = False,
        health: DataDirHealth | None = None,
    ) -> PartitionLog:
        """Open (or create) the partition folder, recovering segments and the log start offset.

        `clean`: the broker stopped cleanly last time, so no batch is CRC-checked again; else
        the batches from the recovery point on (written since the last flush) are.
        """
        folder.mkdir(parents=True, exist_ok=True)
        for leftover in folder.glob(f"*{DELETED_SUFFIX}"):
            leftover.unlink()  # already out of the log before the last stop; the delay is moot now
        checkpoint = read_checkpoint(folder / LOG_START_CHECKPOINT)
        recovery_point = read_checkpoint(folder / RECOVERY_POINT_CHECKPOINT) or 0
        producers = ProducerState()
        segments = recover_segments(folder, None if clean else recovery_point, producers.record)
        if not segments:
            segments = [Segment.create(folder, checkpoint or 0, clock())]
        segments[-1].open_for_append()
        end = segments[-1].next_offset
        start = min(max(checkpoint or 0, segments[0].base_offset), end)
        log = cls(folder, topic, partition, config, clock, segments, start, health)
        log.producer_state = producers
        return log

    # ---- offsets -------------------------------------------------------------------------------

    @property
    def log_start_offset(self) -> int:
        return self._log_start_offset

    @property
    def log_end_offset(self) -> int:
        return self._segments[-1].next_offset

    @property
    def high_watermark(self) -> int:
        # A single node with no replicas: everything written is committed.
        return self.log_end_offset

    @property
    def size_bytes(self) -> int:
        return sum(segment.size for segment in self._segments)

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The live segments, oldest first (read-only view for inspection and tests)."""
        return tuple(self._segments)

    # ---- append --------------------------------------------------------------------------------

    def append(self, records: bytes | bytearray | memoryview) -> int:
        """Validate, stamp offsets on and write one or more v2 batches; return the first offset."""
        return self.append_batches(records).base_offset

    def append_batches(self, records: bytes | bytearray | memoryview) -> AppendResult:
        """`append`, also telling the log append time (Produce reports it for LogAppendTime)."""
        self._health.check()
        buffer = bytearray(records)
        now_ms = self._clock()
        headers = self._validated(buffer, now_ms)
        if any(header.producer_id >= 0 for header in headers):
            if len(headers) != 1:
                raise CorruptRecord(
                    f"an idempotent produce to {self.topic}-{self.partition} must "
                    f"carry one record batch, got {len(headers)}"
                )
            duplicate = self.producer_state.duplicate_of(headers[0])
            if duplicate is not None:
                # A resend after a lost acknowledgement: answer with the first write's offset.
                _log.info(
                    "%s-%d: producer %d resent sequence %d, already at offset %d",
                    self.topic,
                    self.partition,
                    headers[0].producer_id,
                    headers[0].base_sequence,
                    duplicate,
                )
                return AppendResult(duplicate, NO_APPEND_TIME)
        first_offset = self.log_end_offset
        segment_count, active_size = len(self._segments), self._segments[-1].size
        try:
            written = self._write_batches(buffer, headers, first_offset, now_ms)
        except OSError as error:
            # All of this produce or none of it: a batch written before the failure was not
            # acknowledged, and an offset the producer was not given must stay free.
            self._undo_append(segment_count, active_size)
            raise self._failed(error, "appending to") from error
        for header in written:
            self.producer_state.record(header)
        append_time = (
            now_ms if self.config.message_timestamp_type == LOG_APPEND_TIME else NO_APPEND_TIME
        )
        return AppendResult(first_offset, append_time)

    def _write_batches(
        self, buffer: bytearray, headers: list[BatchHeader], first_offset: int, now_ms: int
    ) -> list[BatchHeader]:
        """Stamp offsets and write, rolling where Kafka's rule says; the headers as written."""
        run: list[BatchHeader] = []
        written: list[BatchHeader] = []
        next_offset = first_offset
        for header in headers:
            if self._should_roll(run, header, now_ms):
                self._write_run(buffer, run, now_ms)
                written += run
                run = []
                self._roll(now_ms)
            set_base_offset(buffer, header, next_offset)
            run.append(replace(header, base_offset=next_offset))
            next_offset += header.last_offset_delta + 1
        self._write_run(buffer, run, now_ms)
        return written + run

    def _undo_append(self, segment_count: int, active_size: int) -> None:
        """Put the log back as it was before a failed append: no segment it rolled, no byte it
        wrote. If the undo fails too, the folder is offline anyway and the next start drops the
        empty segments; a batch that could not be cut off is then like one a kill -9 cut off from
        its acknowledgement."""
        rolled = self._segments[segment_count:]
        del self._segments[segment_count:]
        del self._bases[segment_count:]
        active = self._segments[-1]
        try:
            for segment in rolled:
                segment.remove()
            if active.size != active_size:
                active.truncate_to(active_size)
            active.open_for_append()
        except OSError as error:
            _log.error(
                "%s-%d: could not undo a failed append (%s); the next start checks the log",
                self.topic,
                self.partition,
                error,
            )

    def _failed(self, error: OSError, step: str) -> KafkaStorageError:
        return self._health.fail(self.folder, error, f"{step} {self.topic}-{self.partition}")

    def _validated(self, buffer: bytearray, now_ms: int) -> list[BatchHeader]:
        """Every batch's header after Kafka's checks, with its timestamps recomputed in `buffer`."""
        headers = list(iter_batches(buffer))
        if not headers:
            raise CorruptRecord(f"produce to {self.topic}-{self.partition} carried no record batch")
        checked = []
        for header in headers:
            if header.size > self.config.max_message_bytes:
                raise RecordTooLarge(
                    f"a {header.size}-byte batch exceeds max.message.bytes="
                    f"{self.config.max_message_bytes} of topic {self.topic}"
                )
            check_content(buffer, header)
            checked.append(stamp_timestamps(buffer, header, self.config, now_ms))
        return checked

    def _should_roll(self, run: list[BatchHeader], incoming: BatchHeader, now_ms: int) -> bool:
        """Kafka's roll rule, seeing the active segment plus batches not yet written to it."""
        active = self._segments[-1]
        if active.is_empty and not run:
            return False  # one batch bigger than segment.bytes still has to go somewhere
        pending = run[-1].position + run[-1].size - run[0].position if run else 0  # contiguous
        if active.size + pending + incoming.size > self.config.segment_bytes:
            return True
        rolling_ts = active.rolling_timestamp if not active.is_empty else run[0].max_timestamp
        if rolling_ts >= 0:
            return incoming.max_timestamp - rolling_ts > self.config.segment_ms
        # Kafka's LogSegment.timeWaitedForRoll: no first timestamp, so the segment's age counts.
        return now_ms - active.created_ms > self.config.segment_ms

    def _write_run(self, buffer: bytearray, run: list[BatchHeader], now_ms: int) -> None:
        if not run:
            return
        start = run[0].position
        end = run[-1].position + run[-1].size
        relative = [replace(h, position=h.position - start) for h in run] if start else run
        self._segments[-1].append(memoryview(buffer)[start:end], relative, now_ms)

    def _roll(self, now_ms: int) -> None:
        """Start a new empty active segment at the log end offset.

        Every step that can fail on a full disk comes before the new file exists, so a failed
        roll leaves no empty segment behind to claim offsets the old one still hands out.
        """
        old = self._segments[-1]
        # Kafka flushes a segment once it rolls and moves the recovery point past it: a restart
        # after a crash then only re-checks the active segment.
        old.flush()
        write_atomically(self.folder / RECOVERY_POINT_CHECKPOINT, f"{old.next_offset}\n")
        segment = Segment.create(self.folder, old.next_offset, now_ms)
        old.seal()
        self._segments.append(segment)
        self._bases.append(segment.base_offset)
        _log.info("%s-%d: rolled segment %s", self.topic, self.partition, segment.path.name)

    # ---- read ----------------------------------------------------------------------------------

    def _check_range(self, offset: int) -> None:
        if offset < self._log_start_offset or offset > self.high_watermark:
            raise OffsetOutOfRange(
                f"offset {offset} is outside {self.topic}-{self.partition}'s range "
                f"[{self._log_start_offset}, {self.high_watermark}]",
                log_start_offset=self._log_start_offset,
                high_watermark=self.high_watermark,
            )

    @_guarded("reading")
    def read(self, offset: int, max_bytes: int) -> bytes:
        """Whole batches starting with the one holding `offset`; b"" at the high watermark."""
        self._check_range(offset)
        if offset == self.high_watermark:
            return b""
        index = bisect_right(self._bases, offset) - 1
        for segment in self._segments[max(index, 0) :]:
            data = segment.read(offset, max_bytes)
            if data:
                return data
        return b""

    @_guarded("reading")
    def offset_for_timestamp(self, timestamp_ms: int) -> tuple[int, int] | None:
        """(offset, timestamp) of the first record at or after timestamp_ms, or None."""
        for segment in self._segments:
            if (
                segment.max_timestamp < timestamp_ms
                or segment.next_offset <= self._log_start_offset
            ):
                continue
            # From the batch holding the log start offset: the deleted ones before it would be
            # read and decoded record by record for nothing.
            for _base, raw in segment.batches_from_timestamp(timestamp_ms, self._log_start_offset):
                for record in DefaultRecordBatch(raw):
                    if record.offset >= self._log_start_offset and record.timestamp >= timestamp_ms:
                        return record.offset, record.timestamp
        return None

    @_guarded("reading")
    def offset_of_max_timestamp(self) -> tuple[int, int] | None:
        """(offset, timestamp) of the record with the largest timestamp, or None (empty log).

        Kafka's ListOffsets MAX_TIMESTAMP: the first segment holding the largest timestamp, its
        first batch with that max timestamp, that batch's first record carrying it (for a
        LogAppendTime batch, its first record).
        """
        best = max(self._segments, key=lambda segment: segment.max_timestamp)
        if best.is_empty:
            return None
        for base, raw in best.batches_from_timestamp(best.max_timestamp):
            batch = DefaultRecordBatch(raw)
            if batch.max_timestamp != best.max_timestamp:
                continue
            try:
                for record in batch:
                    if record.timestamp == best.max_timestamp:
                        return record.offset, best.max_timestamp
            except UnsupportedCodecError:
                return base, best.max_timestamp  # a codec we cannot read: the batch's start
        return None

    # ---- deletion ------------------------------------------------------------------------------

    @_guarded("DeleteRecords on")
    def delete_records(self, before_offset: int) -> int:
        """Move the log start offset to `before_offset` (-1: high watermark); return the new one."""
        target = self.high_watermark if before_offset == -1 else before_offset
        if target < 0 or target > self.high_watermark:
            raise OffsetOutOfRange(
                f"cannot delete {self.topic}-{self.partition} records before {before_offset}: "
                f"the high watermark is {self.high_watermark}",
                log_start_offset=self._log_start_offset,
                high_watermark=self.high_watermark,
            )
        if target > self._log_start_offset:
            # On disk first: if the file cannot be written, nothing moved, in memory either.
            self._write_checkpoint(target)
            self._log_start_offset = target
            # Whole segments that end at or before the new start are dead; the active one stays.
            dead = bisect_right(self._bases, target, lo=1) - 1
            if dead > 0:
                self._drop_leading(dead, self._clock())
            _log.info(
                "%s-%d: log start offset moved to %d by DeleteRecords",
                self.topic,
                self.partition,
                target,
            )
        return self._log_start_offset

    @_guarded("retention on")
    def apply_retention(self, now_ms: int) -> list[RetentionEvent]:
        """One retention pass: time rule, then size rule; then purge files past their delay."""
        events = []
        for reason in (REASON_TIME, REASON_SIZE):
            summaries = [
                SegmentSummary(s.base_offset, s.size, s.largest_timestamp, s.is_empty)
                for s in self._segments
            ]
            if reason == REASON_TIME:
                count = expired_by_time(summaries, self.config.retention_ms, now_ms)
            else:
                count = expired_by_size(summaries, self.config.retention_bytes)
            if count:
                events.append(self._delete_leading(count, reason, now_ms))
        self.purge_deleted_files(now_ms)
        return events

    def _delete_leading(self, count: int, reason: str, now_ms: int) -> RetentionEvent:
        if count >= len(self._segments):
            self._roll(now_ms)  # as Kafka does, so the log end offset lives on in a file name
        old_start = self._log_start_offset
        new_start = max(old_start, self._segments[count].base_offset)
        if new_start != old_start:
            self._write_checkpoint(new_start)  # before anything moves, as DeleteRecords does
        self._log_start_offset = new_start
        deleted = self._drop_leading(count, now_ms)
        return RetentionEvent(
            self.topic, self.partition, reason, deleted, old_start, self._log_start_offset
        )

    def _drop_leading(self, count: int, now_ms: int) -> list[int]:
        """Take the oldest `count` segments out of the log now; their files go after the delay."""
        dropped = []
        for _ in range(count):
            # Out of the list only once renamed: a failed rename leaves memory matching the disk.
            self._pending_deletes.append((self._segments[0].mark_deleted(), now_ms))
            dropped.append(self._segments.pop(0).base_offset)
            del self._bases[0]
        return dropped

    def purge_deleted_files(self, now_ms: int) -> None:
        """Unlink `.deleted` segment files older than file.delete.delay.ms."""
        keep = []
        for path, deleted_at in self._pending_deletes:
            if now_ms - deleted_at >= self.config.file_delete_delay_ms:
                path.unlink(missing_ok=True)
            else:
                keep.append((path, deleted_at))
        self._pending_deletes = keep

    def _write_checkpoint(self, log_start_offset: int) -> None:
        write_atomically(self.folder / LOG_START_CHECKPOINT, f"{log_start_offset}\n")

    def release(self) -> None:
        """Close the files without flushing or writing anything (a start that was refused)."""
        self._closed = True
        for segment in self._segments:
            segment.close()

    def close(self) -> bool:
        """Close every segment's file, flush, record the recovery point; idempotent.

        Returns whether everything was flushed (False: e.g. disk full). Pending `.deleted`
        files go on the next open.
        """
        if self._closed:
            return True
        self._closed = True
        for segment in self._segments:
            segment.close()
        if not self._health.online:
            return False  # an offline folder is not written again (Kafka); the next start checks it
        try:
            self._segments[-1].flush()
            write_atomically(self.folder / RECOVERY_POINT_CHECKPOINT, f"{self.log_end_offset}\n")
        except OSError as error:
            # A full disk must not stop the other partitions from closing; without a new
            # recovery point the next start simply rechecks more of this log.
            _log.warning(
                "%s-%d: could not record the recovery point (%s); the next start rechecks this log",
                self.topic,
                self.partition,
                error,
            )
            return False
        return True

    def __repr__(self) -> str:
        return (
            f"PartitionLog({self.topic}-{self.partition}, offsets [{self._log_start_offset}, "
            f"{self.log_end_offset}), {len(self._segments)} segments)"
        )
