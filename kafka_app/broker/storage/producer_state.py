"""Idempotent producers of one partition: last epoch and sequence numbers per producer id.

Kafka keeps, per producer id, its epoch and the last five batches' sequence ranges, so a batch
resent after a lost acknowledgement (a broker restart, a timeout) is recognised and answered
with its original offset instead of being written twice. The state is rebuilt from the batch
headers while the log is scanned on start, so it survives a kill -9 with no snapshot file.

Usage: `state = ProducerState(); dup = state.duplicate_of(header); ...; state.record(header)`
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from kafka_app.broker.errors import InvalidProducerEpoch, OutOfOrderSequence
from kafka_app.broker.storage.record_batch import BatchHeader

__all__ = ["ProducerState", "BATCHES_KEPT"]

BATCHES_KEPT = 5  # Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN (max.in.flight <= 5)
_MAX_SEQUENCE = 2**31 - 1
NO_PRODUCER_ID = -1


@dataclass
class _Producer:
    epoch: int
    # (first sequence, last sequence, base offset) of the newest batches, oldest first.
    batches: deque[tuple[int, int, int]] = field(default_factory=lambda: deque(maxlen=BATCHES_KEPT))

    @property
    def last_sequence(self) -> int:
        return self.batches[-1][1] if self.batches else -1


class ProducerState:
    """Per producer id: epoch and the last BATCHES_KEPT sequence ranges written to this partition."""

    def __init__(self) -> None:
        self._producers: dict[int, _Producer] = {}

    def duplicate_of(self, header: BatchHeader) -> int | None:
        """The base offset this batch was already written at, or None if it is new.

        Raises InvalidProducerEpoch for a fenced (older) epoch and OutOfOrderSequence for a gap.
        """
        if header.producer_id == NO_PRODUCER_ID:
            return None
        producer = self._producers.get(header.producer_id)
        if producer is None:
            return None  # first batch we know of (the log start may have moved past older ones)
        if header.producer_epoch < producer.epoch:
            raise InvalidProducerEpoch(
                f"producer {header.producer_id} epoch {header.producer_epoch} is older than "
                f"epoch {producer.epoch} already written"
            )
        last = _last_sequence(header)
        if header.producer_epoch == producer.epoch:
            for first_seq, last_seq, base_offset in producer.batches:
                if (first_seq, last_seq) == (header.base_sequence, last):
                    return base_offset
            expected = 0 if producer.last_sequence == _MAX_SEQUENCE else producer.last_sequence + 1
        else:
            expected = 0  # a bumped epoch starts its sequences again
        if header.base_sequence != expected:
            raise OutOfOrderSequence(
                f"producer {header.producer_id} sent sequence {header.base_sequence}, "
                f"expected {expected}"
            )
        return None

    def record(self, header: BatchHeader) -> None:
        """Remember a batch just written (or found while scanning the log on start)."""
        if header.producer_id == NO_PRODUCER_ID:
            return
        producer = self._producers.get(header.producer_id)
        if producer is None or header.producer_epoch != producer.epoch:
            producer = self._producers[header.producer_id] = _Producer(header.producer_epoch)
        producer.batches.append((header.base_sequence, _last_sequence(header), header.base_offset))

    def __len__(self) -> int:
        return len(self._producers)


def _last_sequence(header: BatchHeader) -> int:
    # Sequences wrap at Int32.MAX_VALUE, as in Kafka's DefaultRecordBatch.incrementSequence.
    last = header.base_sequence + header.last_offset_delta
    return last - _MAX_SEQUENCE - 1 if last > _MAX_SEQUENCE else last
