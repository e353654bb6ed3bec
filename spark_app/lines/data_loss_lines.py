"""The data-loss words, in one place: how the app says which offsets were lost or skipped, and
how the scenarios read them back.

Three pieces of text, in the connector's words where it has them:

    Could not read records in offset [5, 12) for topic partition Experience-0 with consumer group G.
    Kafka's earliest offset of Experience-0 is now 9, so offsets [5, 9) are gone (4 messages).
    ... Offset 5 is out of range, and records in [5, 9) will be skipped (GroupId: G, ...).

The first is Spark's KafkaExceptions.couldNotReadOffsetRange (our source says it word for word,
so a scenario reads either source's error alike); the second is the playground's addition after
Spark's words; the third is KafkaDataConsumer's warning with failOnDataLoss=false, in spark.log.

Usage:
    text = could_not_read_text(tp, 5, 12, "G")
    lost_range_in(text)   # (5, 12)
"""

from __future__ import annotations

import re

from spark_app.offsets import TopicPartition

__all__ = [
    "could_not_read_text",
    "earliest_now_text",
    "past_the_topic_text",
    "skipped_text",
    "lost_range_in",
    "earliest_now_in",
    "skipped_ranges_in",
    "offset_changes_in",
    "SKIP_WARNING_GREP",
    "skip_warning_as_printed",
]


def could_not_read_text(tp: TopicPartition, start: int, end: int, group_id: str) -> str:
    """Spark's reason for COULD_NOT_READ_OFFSET_RANGE: the batch's range that cannot be read."""
    return (
        f"Could not read records in offset [{start}, {end}) for topic partition {tp} "
        f"with consumer group {group_id}."
    )


def earliest_now_text(
    tp: TopicPartition, earliest: int, start: int, latest: int | None = None
) -> str:
    """The playground's addition: where Kafka's log starts now, so which offsets are gone.

    What is gone runs from `start` (the checkpoint's offset, where the batch begins) to Kafka's
    earliest offset, not to the batch's `end`: a restart after a long pause plans a batch of
    what Spark last saw (one record, perhaps), while retention went on deleting far past it,
    and every one of those messages is lost to the query (`inspect` counts them the same way).

    When Kafka's earliest offset is not above the range's start, retention deleted none of it:
    the range lies past the end of the topic (recreated, or another broker than the one the
    checkpoint read), which `past_the_topic_text` says instead of an empty range."""
    if earliest <= start:
        return past_the_topic_text(tp, earliest, start, latest)
    return (
        f"Kafka's earliest offset of {tp} is now {earliest}, so offsets [{start}, "
        f"{earliest}) are gone ({earliest - start} messages)."
    )


def past_the_topic_text(tp: TopicPartition, earliest: int, start: int, latest: int | None) -> str:
    """Offset `start` was not aged out: Kafka's log of `tp` begins at or below it."""
    if latest is not None and latest > start:
        return (
            f"Kafka holds offsets [{earliest}, {latest}) of {tp}: offset {start} was not "
            f"aged out, yet it could not be read."
        )
    holds = (
        f"Kafka holds offsets [{earliest}, {latest}) of {tp} only"
        if latest is not None
        else f"Kafka's earliest offset of {tp} is {earliest}"
    )
    return (
        f"{holds}: nothing of the range was aged out; the checkpoint points past the "
        f"topic's latest offset. The topic was recreated, or this is another broker than "
        f"the one the checkpoint read (the demo's?)."
    )


def skipped_text(start: int, skipped_to: int) -> str:
    """The heart of KafkaDataConsumer's warning when failOnDataLoss=false skips records."""
    return f"records in [{start}, {skipped_to}) will be skipped"


_COULD_NOT_READ = re.compile(
    r"Could not read records in offset \[(\d+), (\d+)\) for topic "
    r"partition \S+ with consumer group"
)
_EARLIEST_NOW = re.compile(r"Kafka's earliest offset of \S+ is now (\d+), so offsets")
# The connector 4.2.0 writes this warning over several lines and closes the range with `]`
# although its end is exclusive (the batch's untilOffset): `records in\n [13, 19] will be\n
# skipped`; through a log layout that does not fill its template in, the range reads
# `[MDC[key=OFFSET, value=5], MDC[key=UNTIL_OFFSET, value=12]]`. All three forms count.
_SKIPPED = re.compile(
    r"records in \[(?:(\d+), (\d+)[)\]]|MDC\[key=OFFSET, value=(\d+)\], "
    r"MDC\[key=UNTIL_OFFSET, value=(\d+)\]\]) will be skipped"
)


# Finds the skip warning's first line in spark.log on either source; -A2 brings the connector's
# next two lines with it (it breaks the warning after `records in` and after `will be`).
SKIP_WARNING_GREP = "grep -A2 'out of range, and records in'"


def skip_warning_as_printed(source: str) -> str:
    """The skip warning as a learner finds it in spark.log on this source (`spark-kafka` or
    `python`): the connector's own lines differ from the words `skipped_text` quotes."""
    if source == "spark-kafka":
        return (
            "`Offset a is out of range, and records in` / `[a, b] will be` / `skipped`, over "
            "three lines (the connector closes the range with `]` although b is not skipped, "
            "and its log template may show a as `MDC[key=OFFSET, value=a]`)"
        )
    return "`Offset a is out of range, and records in [a, b) will be skipped`, on one line"


def lost_range_in(text: str) -> tuple[int, int] | None:
    """The [start, end) of the first could-not-read error in `text`, if any."""
    found = _COULD_NOT_READ.search(text)
    return (int(found.group(1)), int(found.group(2))) if found else None


def earliest_now_in(text: str) -> int | None:
    """Kafka's earliest offset as the first data-loss error in `text` named it, if it did."""
    found = _EARLIEST_NOW.search(text)
    return int(found.group(1)) if found else None


def skipped_ranges_in(text: str) -> list[tuple[int, int]]:
    """Every skipped [start, end) in `text` (spark.log), in the order written."""
    flat = " ".join(text.split())
    return [(int(a or c), int(b or d)) for a, b, c, d in _SKIPPED.findall(flat)]


# KafkaOffsetReader's words when a partition's latest offset is below where the query is
# (PARTITION_OFFSET_CHANGED): `Partition T-0 offset was changed from X to Y` in the error,
# `Partition T-0's offset was changed …` in the warning with failOnDataLoss=false.
_OFFSET_CHANGED = re.compile(r"offset was changed from (\d+) to (\d+)")


def offset_changes_in(text: str) -> list[tuple[int, int]]:
    """(from, to) of every `offset was changed from X to Y` in `text`, error or warning."""
    return [(int(a), int(b)) for a, b in _OFFSET_CHANGED.findall(text)]
