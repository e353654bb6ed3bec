"""Offsets kept outside Spark, in a Kafka consumer group: seed 000's "manually dealing with checkpoints".

With `--offsets-from-group GROUP` the Kafka source commits each batch's START offsets to GROUP
when the batch is planned, before it runs. Start offsets, not end offsets: everything below
them has been written by an earlier batch, so a query that starts there again misses nothing.
The price is at-least-once: the batch that was running (or had just finished) when the app
stopped is done again. A query on a fresh checkpoint starts from the committed offsets; on an
existing checkpoint the checkpoint decides, as it always does in Spark.

This module is the pure decision (where does this query start, and what do we tell the user);
`kafka_client.GroupOffsets` talks to Kafka, `kafka_source` commits (what: a batch's start,
`offset_ranges.start_offsets_to_commit`), and on the connector `connector_group` does.

Usage:
    choice = choose_start("spark-app", checkpoint_is_new=True, partitions=[TopicPartition("Experience", 0)],
                          committed={TopicPartition("Experience", 0): 42}, starting_offsets="earliest")
    choice.spec     # '{"Experience":{"0":42}}', Spark's JSON startingOffsets
    choice.message  # one line for the console and spark.log
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from spark_app.offsets import (
    EARLIEST,
    LATEST,
    Offsets,
    TopicPartition,
    describe_offsets,
    offsets_to_text,
    parse_offsets,
)

__all__ = ["group_start_in", "StartChoice", "choose_start"]

StartFrom = Literal["checkpoint", "group", "starting-offsets"]


@dataclass(frozen=True)
class StartChoice:
    """Where the query starts: `spec` goes to the source's startingOffsets option."""

    spec: str
    origin: StartFrom
    message: str


def _fallback(starting_offsets: str, tp: TopicPartition) -> int:
    """What --starting-offsets says for one partition, as a JSON startingOffsets value."""
    if starting_offsets == "earliest":
        return EARLIEST
    if starting_offsets == "latest":
        return LATEST
    return parse_offsets(starting_offsets).get(tp, EARLIEST)


def choose_start(
    group: str,
    *,
    checkpoint_is_new: bool,
    partitions: list[TopicPartition],
    committed: Offsets,
    starting_offsets: str,
) -> StartChoice:
    """Decide where a query with --offsets-from-group starts, and say why in one line."""
    if not checkpoint_is_new:
        kept = f" ({describe_offsets(committed)})" if committed else ""
        return StartChoice(
            starting_offsets,
            "checkpoint",
            f"The checkpoint already holds offsets, so it decides where the query "
            f"resumes; the offsets committed for consumer group {group}{kept} are "
            f"not used (they are for a fresh checkpoint).",
        )
    mine = {tp: committed[tp] for tp in partitions if tp in committed}
    if not mine:
        return StartChoice(
            starting_offsets,
            "starting-offsets",
            f"Fresh checkpoint, and consumer group {group} has no committed offsets "
            f"for this topic: starting from --starting-offsets {starting_offsets}.",
        )
    # A partition the group never saw (added since) starts where --starting-offsets says.
    spec = {tp: mine.get(tp, _fallback(starting_offsets, tp)) for tp in partitions}
    others = [tp for tp in partitions if tp not in mine]
    extra = (
        f"; {', '.join(map(str, others))} from --starting-offsets {starting_offsets}"
        if others
        else ""
    )
    return StartChoice(
        offsets_to_text(spec),
        "group",
        f"{_FROM_GROUP.format(group=group)}{describe_offsets(mine)}{extra}. The "
        f"batch that was in flight when they were committed is processed again "
        f"(at-least-once).",
    )


# The start line's words before the group's offsets; `group_start_in` reads the line back.
_FROM_GROUP = "Fresh checkpoint: starting from the offsets committed for consumer group {group}: "
_TP_AT = re.compile(r"(\S+)-(\d+)@(\d+)")


def group_start_in(output: str, group: str) -> Offsets | None:
    """The offsets the app said it started from, committed for `group`; None if it did not say."""
    said = re.search(
        re.escape(_FROM_GROUP.format(group=group)) + r"((?:\S+-\d+@\d+(?:, )?)+)", output
    )
    if said is None:
        return None
    return {
        TopicPartition(topic, int(partition)): int(offset)
        for topic, partition, offset in _TP_AT.findall(said.group(1))
    }
