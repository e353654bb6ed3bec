"""Kafka offsets in the JSON shape Spark's own Kafka source writes to the checkpoint.

A position in a topic is one offset per partition: `{"Experience": {"0": 42}}` means "the next
message to read from partition 0 of Experience is offset 42". The source returns this shape from
`latestOffset`, Spark stores it verbatim in `offsets/<batch>`, and the checkpoint reader and the
inspector parse it back. Keeping the shape in one module keeps the three in agreement.

Usage: `offsets = parse_offsets({"Experience": {"0": 42}}); offsets_to_json(offsets)`
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = [
    "EARLIEST",
    "LATEST",
    "TopicPartition",
    "Offsets",
    "parse_offsets",
    "offsets_to_json",
    "offsets_to_text",
    "describe_offsets",
]

# Spark's Kafka source accepts these sentinels in a startingOffsets JSON.
EARLIEST = -2
LATEST = -1


class TopicPartition(NamedTuple):
    """One partition of one topic, printed the way Kafka tools print it: `Experience-0`."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


Offsets = dict[TopicPartition, int]


def parse_offsets(value: Mapping[str, Any] | str) -> Offsets:
    """Read `{"topic": {"partition": offset}}` (a dict or its JSON text) into an `Offsets` map.

    Raises ValueError naming what is wrong, so a hand-written startingOffsets gets a clear message.
    """
    raw = json.loads(value) if isinstance(value, str) else value
    if not isinstance(raw, Mapping):
        raise ValueError(f"offsets must be a JSON object of topics, got {raw!r}")
    offsets: Offsets = {}
    for topic, partitions in raw.items():
        if not isinstance(partitions, Mapping):
            raise ValueError(f"offsets of topic {topic!r} must be an object of partitions")
        for partition, offset in partitions.items():
            if isinstance(offset, bool) or not isinstance(offset, int):
                raise ValueError(
                    f"offset of {topic}-{partition} must be an integer, got {offset!r}"
                )
            offsets[TopicPartition(str(topic), int(partition))] = offset
    return offsets


def offsets_to_json(offsets: Offsets) -> dict[str, dict[str, int]]:
    """The checkpoint's shape, sorted so equal positions always serialise identically."""
    out: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):
        out.setdefault(tp.topic, {})[str(tp.partition)] = offsets[tp]
    return out


def offsets_to_text(offsets: Offsets) -> str:
    """Compact JSON text of the checkpoint's shape, as it appears in `offsets/<batch>`."""
    return json.dumps(offsets_to_json(offsets), separators=(",", ":"))


def describe_offsets(offsets: Offsets) -> str:
    """Human words: `Experience-0@42, Experience-1@17`."""
    return ", ".join(f"{tp}@{offsets[tp]}" for tp in sorted(offsets)) or "(no partitions)"
