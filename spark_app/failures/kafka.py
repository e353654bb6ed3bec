"""Spark's Kafka connector failing, in the app's words: data loss, a Kafka it cannot reach, and
a Kafka client refusing the source's kafka.* options.

Our source raises these errors itself (spark_app/source/); the connector raises Java exceptions
whose text reaches Python. Each recogniser here reads that text and returns the error our source
would have raised, the connector's words first, so the scenarios and the supervisor read both
sources' failures alike (by class, not by string).

Usage:
    error = connector_data_loss(str(query_exception), client_lookup)  # None: no data loss
    error = data_loss(text, settings) or unreachable(text, settings) or options_refused(text)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spark_app.errors import (
    AddedPartitionNotFromZeroError,
    CouldNotReadOffsetRangeError,
    DataLossError,
    InitialOffsetNotFoundError,
    KafkaUnreachableError,
    PartitionOffsetChangedError,
    PartitionsDeletedError,
    SourceOptionError,
)
from spark_app.lines.data_loss_lines import lost_range_in
from spark_app.offsets import TopicPartition
from spark_app.settings import SparkAppSettings
from spark_app.source.data_loss import data_loss_error, read_note
from spark_app.source.kafka_client import TopicClient

__all__ = ["connector_data_loss", "data_loss", "unreachable", "options_refused"]

# The connector's KafkaIllegalStateException (4.2.0) reaches Python as Spark's sentence and
# `Reason: <the sub-condition's template>`, without the condition's name: which template the
# reason fills tells the sub-condition (kafka-error-conditions.json).
_CONNECTOR_REASONS: tuple[tuple[str, type[DataLossError]], ...] = (
    ("Could not read records in offset", CouldNotReadOffsetRangeError),
    ("Partition ", PartitionOffsetChangedError),
    ("Added partition ", AddedPartitionNotFromZeroError),
    ("Partitions ", PartitionsDeletedError),
    ("Cannot find initial offsets", InitialOffsetNotFoundError),
)
_REASON = re.compile(r"not available in Kafka any more;.*?Reason: (.+?)(?: SQLSTATE: | === |$)")
_TOPIC_PARTITION = re.compile(r"for topic partition (\S+)-(\d+) with")

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


def connector_data_loss(
    text: str, offsets_of: Callable[[TopicPartition], tuple[int, int] | None] | None = None
) -> DataLossError | None:
    """The connector's data-loss failure in `text`, as the error our source raises for it (the
    condition's name first, Spark's words, the reason, the way out); None if there is none.

    `offsets_of(tp)` looks Kafka's earliest and latest offsets up now: for a read that failed,
    the playground adds which offsets are gone, from the range's start to Kafka's earliest
    offset now (or that the range lies past the topic's end), after the connector's words, as
    it does for our source (the connector names only the batch's range, which may be one
    record when retention deleted hundreds).

    Usage: `error = connector_data_loss(str(query_exception), client_lookup)`
    """
    flat = " ".join(text.split())
    match = _REASON.search(flat)
    if match is None:
        return None
    reason = match.group(1).strip()
    for start, kind in _CONNECTOR_REASONS:
        if reason.startswith(start):
            note = _kafka_note(kind, reason, offsets_of)
            return data_loss_error(kind, reason, *note) if note else data_loss_error(kind, reason)
    return None


def _kafka_note(
    kind: type[DataLossError],
    reason: str,
    offsets_of: Callable[[TopicPartition], tuple[int, int] | None] | None,
) -> tuple[str, str] | None:
    """The playground's addition to a failed read, and its way out; None when it has none."""
    found = _TOPIC_PARTITION.search(reason)
    span = lost_range_in(reason)
    if kind is not CouldNotReadOffsetRangeError or offsets_of is None or not found or not span:
        return None
    tp = TopicPartition(found.group(1), int(found.group(2)))
    now = offsets_of(tp)
    return read_note(tp, span[0], *(now or (None, None)))


def data_loss(text: str, settings: SparkAppSettings) -> DataLossError | None:
    """--source spark-kafka: the connector's data loss named as ours names it, with what Kafka
    holds now."""
    return connector_data_loss(text, lambda tp: _offsets_now(settings, tp))


def unreachable(text: str, settings: SparkAppSettings) -> KafkaUnreachableError | None:
    """The connector's words for a Kafka it cannot reach, as KAFKA_UNREACHABLE."""
    timed_out = _KAFKA_TIMEOUT.search(text)
    if timed_out is None:
        return None
    return KafkaUnreachableError.at(
        settings.bootstrap_servers,
        f"Spark's Kafka connector: TimeoutException: {timed_out.group(1).strip()[:200]}",
    )


def options_refused(text: str) -> SourceOptionError | None:
    """A Kafka client refusing the source's kafka.* options, with the flag to change."""
    refused = _KAFKA_CONFIG_REFUSED.search(text)
    if refused is None:
        return None
    return SourceOptionError(
        f"Kafka's client refused the source's kafka.* options: "
        f"{refused.group(1)} Change the --source-option named there "
        f"(e.g. give kafka.request.timeout.ms too) and start again."
    )


def _offsets_now(settings: SparkAppSettings, tp: TopicPartition) -> tuple[int, int] | None:
    """Kafka's earliest and latest offsets of `tp` now, or None when Kafka does not answer: an
    addition to the connector's words is worth a few seconds, not a second failure."""
    try:
        with TopicClient(settings.bootstrap_servers, timeout_sec=5.0) as client:
            return client.earliest_of([tp])[tp], client.latest_of([tp])[tp]
    except Exception:  # noqa: BLE001 - any failure only leaves the addition out
        return None
