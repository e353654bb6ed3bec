"""Which partition the producer sends a value to, and which value a partition's offset holds.

The producer spreads its counter round robin by value, not by hashing the key, so a negative
key lands where its positive twin would have and consecutive values spread evenly. The rule has
an exact inverse, which the scenarios use to say which values a batch's offset range holds.

Usage:
    partition_for(7, partitions=3)              # 0: values 1, 4, 7, ... go to partition 0
    value_at(partition=0, offset=2, partitions=3)  # 7
"""

from __future__ import annotations

__all__ = ["partition_for", "value_at"]


def partition_for(value: int, partitions: int) -> int:
    """The partition of value `value` (1, 2, 3, ...): value v goes to partition (v-1) % P."""
    return (value - 1) % partitions


def value_at(partition: int, offset: int, partitions: int) -> int:
    """The value at `offset` of `partition` when every value was sent by `partition_for`:
    value v is at offset (v-1) // P of its partition, so offset o of partition p holds o*P + p + 1."""
    return offset * partitions + partition + 1
