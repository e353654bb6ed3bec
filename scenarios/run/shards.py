"""A run split over machines: `--shard I/N` takes every N-th of the chosen scenarios, starting
at the I-th, so N CI jobs given the same names and 1/N … N/N run each scenario exactly once;
`python -m scenarios merge` (merge.py) joins their report folders into one.

Every N-th rather than a block of N: the catalog's order puts related lessons together, and the
long ones near each other, so striping spreads them over the jobs.

Usage: `Shard.parse("2/3").pick(scenarios)`
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from scenarios.errors import ScenarioError

__all__ = ["Shard"]

T = TypeVar("T")


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`I/N` with 1 <= I <= N, or one line saying what was wrong."""
        left, slash, right = text.partition("/")
        if slash and left.strip().isdigit() and right.strip().isdigit():
            shard = cls(int(left), int(right))
            if 1 <= shard.index <= shard.count:
                return shard
        raise ScenarioError(
            f"--shard {text}: give I/N with 1 <= I <= N, e.g. --shard 2/3 for the "
            "second of three jobs"
        )

    def pick(self, items: Sequence[T]) -> list[T]:
        return list(items[self.index - 1 :: self.count])

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
