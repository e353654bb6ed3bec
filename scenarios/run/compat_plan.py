"""`scenarios compat`'s matrix, planned before anything starts: which query runs with which app
settings, written on which Spark line and restarted on which.

A cell is one query in one variant (the counter on each state store and checkpoint format; a
gallery query with its own settings) over one ordered pair of served lines, the writing line
first: every pair of two different lines, both ways, so that an upgrade and the downgrade back
are each a cell. Each cell runs as one check-change of the query against itself
(scenarios/run/check_change.py), so compat judges by the same machinery and oracle.

Usage:
    cells = plan_cells(gallery_queries(), lines=["4.0.0", "4.2.0"])
    [c.name for c in cells]   # ['counter-hdfs-4.0.0-to-4.2.0', ...]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.spark_envs import SERVED_LINES
from scenarios.errors import ScenarioError

__all__ = [
    "COUNTER",
    "COUNTER_TWS",
    "COUNTER_VARIANTS",
    "Cell",
    "Variant",
    "gallery_queries",
    "chosen_lines",
    "chosen_queries",
    "plan_cells",
]

QUERIES = PROJECT_ROOT / "queries"
COUNTER = QUERIES / "counter.py"
# The counter on transformWithState: a RocksDB store only (Spark refuses HDFS for it).
COUNTER_TWS = QUERIES / "state" / "counter_tws.py"


@dataclass(frozen=True)
class Variant:
    """The app settings a query runs with in a cell, named as the table shows them."""

    name: str
    settings: tuple[tuple[str, Any], ...] = ()

    @property
    def store(self) -> str:
        return str(dict(self.settings).get("state_store", "hdfs"))

    @property
    def format(self) -> int:
        return int(dict(self.settings).get("checkpoint_format", 1))


# The counter on each state store and checkpoint format Spark writes (format 2 is RocksDB's
# only: HDFS refuses it, spark_app/runtime/state_store.py); on transformWithState it is a
# module of its own (COUNTER_TWS), on RocksDB.
COUNTER_VARIANTS = (
    Variant("hdfs"),
    Variant("rocksdb", (("state_store", "rocksdb"),)),
    Variant("rocksdb-format-2", (("state_store", "rocksdb"), ("checkpoint_format", 2))),
)
_GALLERY_VARIANTS = (Variant("hdfs"),)
_TWS_VARIANTS = (Variant("rocksdb", (("state_store", "rocksdb"),)),)


@dataclass(frozen=True)
class Cell:
    """One cell of the matrix: a query in a variant, written on one line, restarted on another."""

    query: Path
    variant: Variant
    from_line: str
    to_line: str

    @property
    def name(self) -> str:
        return f"{self.query.stem}-{self.variant.name}-{self.from_line}-to-{self.to_line}"


def gallery_queries() -> list[Path]:
    """The counter first (on applyInPandasWithState, then on transformWithState), then the
    gallery's query modules (queries/*.py), by name."""
    gallery = sorted(p for p in QUERIES.glob("*.py") if p != COUNTER)
    return [COUNTER, COUNTER_TWS, *gallery]


def chosen_lines(text: str) -> list[str]:
    """`--lines 4.0.0,4.2.0` as a list (empty: every served line); one line, or an unserved
    one, is a ScenarioError in one line."""
    lines = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip())) or list(
        SERVED_LINES
    )
    unserved = [v for v in lines if v not in SERVED_LINES]
    if unserved:
        raise ScenarioError(
            f"--lines {', '.join(unserved)}: Maven Central serves Spark's Kafka connector whole "
            f"for {', '.join(SERVED_LINES)} only; give two or more of those"
        )
    if len(lines) < 2:
        raise ScenarioError(
            f"--lines {lines[0]}: compat restarts a checkpoint on another line, so give two or "
            f"more of {', '.join(SERVED_LINES)}"
        )
    return lines


def chosen_queries(text: str) -> list[Path]:
    """`--queries counter,dedup` as the modules (empty: the counter and the whole gallery); a
    name the gallery does not have is a ScenarioError in one line naming those it has."""
    known = {p.stem: p for p in gallery_queries()}
    names = [v.strip().removesuffix(".py") for v in text.split(",") if v.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ScenarioError(
            f"--queries {', '.join(unknown)}: the gallery has {', '.join(known)} (queries/)"
        )
    return [known[n] for n in dict.fromkeys(names)] or list(known.values())


def plan_cells(queries: Sequence[Path], lines: Sequence[str]) -> list[Cell]:
    """Every query in each of its variants over every ordered pair of two different lines."""
    pairs = [(f, t) for f in lines for t in lines if f != t]
    return [
        Cell(query, variant, f, t)
        for query in queries
        for variant in {COUNTER: COUNTER_VARIANTS, COUNTER_TWS: _TWS_VARIANTS}.get(
            query, _GALLERY_VARIANTS
        )
        for f, t in pairs
    ]
