"""Data loss as Spark's Kafka connector reports it: which condition, with which words, and what
`failOnDataLoss=false` does instead.

The connector meets lost data in two places. Planning a batch on the driver
(`KafkaOffsetReaderAdmin.getOffsetRangesFromResolvedOffsets`, after `offsets/N` is written) it
finds partitions added not from offset 0, partitions gone, and partitions whose offset went
backwards (a recreated topic). Reading a range in a task (`KafkaDataConsumer.get`) it finds
offsets already deleted by retention. Each time it calls `reportDataLoss`: with
`failOnDataLoss=true` it throws the `KAFKA_DATA_LOSS.<SUB>` condition, else it logs a warning
and goes on. This module builds the same messages from the templates in Spark's
`kafka-error-conditions.json`, and our extra facts follow Spark's words, never replace them.
Our source raises them itself; when the connector raises one, spark_app/failures/kafka.py reads
its text and builds the same error here.

Spark's template spans several lines; our errors are one line each (the app prints one line),
so the line breaks become spaces and the words stay the same.

Usage:
    report = DataLossReporter(fail=True, warn=print)
    report.partition_offset_changed(TopicPartition("Experience", 0), 120, 5)  # raises
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spark_app.errors import (
    AddedPartitionNotFromZeroError,
    CouldNotReadOffsetRangeError,
    DataLossError,
    InitialOffsetNotFoundError,
    PartitionOffsetChangedError,
    PartitionsDeletedError,
)
from spark_app.lines.data_loss_lines import could_not_read_text, earliest_now_text
from spark_app.offsets import TopicPartition

__all__ = [
    "DataLossReporter",
    "SPARK_DATA_LOSS_TEXT",
    "FAIL_ON_DATA_LOSS_FALSE_TEXT",
    "RESET_WAY_OUT",
    "java_set",
    "could_not_read",
    "data_loss_error",
    "read_note",
]

# The KAFKA_DATA_LOSS condition's main message (its lines joined by spaces).
SPARK_DATA_LOSS_TEXT = (
    "Some data may have been lost because they are not available in Kafka any more; either the "
    "data was aged out by Kafka or the topic may have been deleted before all the data in the "
    "topic was processed. If you don't want your streaming query to fail on such cases, set the "
    "source option failOnDataLoss to false. Reason:"
)
# KafkaSourceProvider.INSTRUCTION_FOR_FAIL_ON_DATA_LOSS_FALSE, the tail of every warning.
FAIL_ON_DATA_LOSS_FALSE_TEXT = (
    "Some data may have been lost because they are not available in Kafka any more; either the "
    "data was aged out by Kafka or the topic may have been deleted before all the data in the "
    "topic was processed. If you want your streaming query to fail on such cases, set the source "
    'option "failOnDataLoss" to "true".'
)
_WAY_OUT = (
    "To go on without the lost messages restart with --fail-on-data-loss false; to start "
    "over delete the checkpoint folder (the count restarts)."
)
# When the checkpoint points past the topic's end, skipping is no way out: only a new checkpoint.
RESET_WAY_OUT = (
    "To start clean, stop the app and run `python -m spark_app reset` (with the "
    "app's --checkpoint-dir and --log-dir if you gave them; the count restarts)."
)


def java_set(parts: Iterable[TopicPartition]) -> str:
    """A Scala Set[TopicPartition] as Spark prints it: `Set(Experience-1, Experience-2)`."""
    return f"Set({', '.join(str(tp) for tp in sorted(parts))})"


def data_loss_error(
    kind: type[DataLossError], reason: str, extra: str = "", way_out: str = _WAY_OUT
) -> DataLossError:
    """The condition in the connector's words: its name, Spark's sentence, the reason, then the
    playground's addition and way out in `[playground: …]`."""
    ours = f" [playground: {extra} {way_out}]" if extra else f" [playground: {way_out}]"
    return kind(f"{kind.token}: {SPARK_DATA_LOSS_TEXT} {reason}{ours}")


def read_note(
    tp: TopicPartition, start: int, earliest: int | None, latest: int | None
) -> tuple[str, str]:
    """The playground's addition to a failed read from `start` (the checkpoint's offset) and its
    way out: deleted offsets can be skipped; a range past the topic's end (the topic recreated,
    another broker) cannot."""
    if earliest is None:
        return "", _WAY_OUT
    past = earliest <= start and (latest is None or latest <= start)
    return (
        earliest_now_text(tp, earliest, start, latest),
        RESET_WAY_OUT if past else _WAY_OUT,
    )


def could_not_read(
    tp: TopicPartition,
    start: int,
    end: int,
    group_id: str,
    earliest: int | None = None,
    latest: int | None = None,
) -> CouldNotReadOffsetRangeError:
    """KafkaExceptions.couldNotReadOffsetRange: [first offset not readable, end of the range)."""
    error = data_loss_error(
        CouldNotReadOffsetRangeError,
        could_not_read_text(tp, start, end, group_id),
        *read_note(tp, start, earliest, latest),
    )
    assert isinstance(error, CouldNotReadOffsetRangeError)
    return error


@dataclass
class DataLossReporter:
    """`reportDataLoss` of the connector's planning: raise the condition, or warn and go on."""

    fail: bool
    warn: Callable[[str], None]

    def _report(self, message: str, error: DataLossError) -> None:
        if self.fail:
            raise error
        self.warn(f"{message}. {FAIL_ON_DATA_LOSS_FALSE_TEXT}")

    def initial_offset_not_found(self, parts: set[TopicPartition]) -> None:
        self._report(
            f"Cannot find earliest offsets of {java_set(parts)}. Some data may have been missed",
            data_loss_error(
                InitialOffsetNotFoundError,
                f"Cannot find initial offsets for "
                f"partitions {java_set(parts)}. They may have been deleted.",
            ),
        )

    def added_partition_not_from_zero(self, tp: TopicPartition, offset: int) -> None:
        self._report(
            f"Added partition {tp} starts from {offset} instead of 0. Some data may "
            f"have been missed",
            data_loss_error(
                AddedPartitionNotFromZeroError,
                f"Added partition {tp} starts from {offset} instead of 0.",
                f"offsets [0, {offset}) of {tp} were deleted before the query saw the partition.",
            ),
        )

    def partitions_deleted(self, parts: set[TopicPartition]) -> None:
        self._report(
            f"{java_set(parts)} are gone. Some data may have been missed.",
            data_loss_error(
                PartitionsDeletedError, f"Partitions {java_set(parts)} have been deleted."
            ),
        )

    def partition_offset_changed(self, tp: TopicPartition, before: int, now: int) -> None:
        self._report(
            f"Partition {tp}'s offset was changed from {before} to {now}, some data "
            f"may have been missed",
            data_loss_error(
                PartitionOffsetChangedError,
                f"Partition {tp} offset was changed from {before} to {now}. This "
                f"could be either 1) a user error that the start offset is set "
                f"beyond available offset when starting query, or 2) the kafka "
                f"topic-partition is deleted and re-created.",
                f"Kafka's latest offset of {tp} ({now}) is below the {before} the "
                f"query reached: the topic was most likely deleted and recreated.",
            ),
        )
