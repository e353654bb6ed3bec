"""A user's query judged by what went into Kafka: what its sink holds against the same query
evaluated over every record sent.

The oracle evaluates the query's `build()` over all the records the producer had acknowledged,
in a Spark of its own (`python -m spark_app evaluate`), which gives the rows the query should
have produced: `expected`. The app's exactly-once sink wrote each batch's rows, with the
batch id: `written`. This compares the two, per output mode, as pure code:

- update: the last row written per KEY is the expected row of that KEY;
- complete: the last batch's rows are the expected rows;
- append: every batch's rows together are the expected rows, each exactly once (rows compared
  by KEY and every column).

Rows missing, extra, written twice or different are named with their KEY, as the counter's
checker names values. A query whose result depends on where batches begin and end (append mode
with a watermark, processing time) cannot be held to the batch result row for row; for it the
rule is what must still hold (docs/your-query.md#what-is-checked):
- no row is written twice for one KEY, and every written KEY is one the batch result has;
- a written row may differ from the batch result's only where Spark dropped records as later
  than the watermark, and no more rows than it dropped;
- a KEY the batch result has but the sink lacks is allowed only after every written KEY (a
  window still open when the run stopped), and is named.

Usage:
    verdict = compare(expected, written, mode="update", key=["bucket"])
    verdict.ok, verdict.summary_lines()
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spark_app.lines.query_rows import BATCH_COLUMN

__all__ = [
    "BATCH_COLUMN",
    "OUTPUT_MODES",
    "QueryVerdict",
    "RowProblem",
    "compare",
    "key_of",
]

OUTPUT_MODES = ("append", "update", "complete")
Row = Mapping[str, Any]


def key_of(row: Row, key: Sequence[str]) -> tuple[Any, ...]:
    return tuple(row.get(column) for column in key)


def _columns(row: Row) -> dict[str, Any]:
    """The row's own columns (without the batch id the sink adds)."""
    return {k: v for k, v in row.items() if k != BATCH_COLUMN}


def _frozen(row: Row) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, repr(v)) for k, v in _columns(row).items()))


@dataclass(frozen=True)
class RowProblem:
    """One KEY whose row is wrong: `expected` and `written` as the reader would compare them."""

    key: tuple[Any, ...]
    expected: dict[str, Any] | None
    written: dict[str, Any] | None
    times: int = 1  # how often it was written (a row written twice: 2)

    def words(self, key: Sequence[str]) -> str:
        named = ", ".join(f"{c}={v!r}" for c, v in zip(key, self.key))
        if self.expected is None:
            return f"{named}: written {_row_text(self.written)} but not in the batch result"
        if self.written is None:
            return f"{named}: expected {_row_text(self.expected)}, never written"
        if self.times > 1:
            return f"{named}: written {self.times} times"
        return f"{named}: expected {_row_text(self.expected)}, written {_row_text(self.written)}"


def _row_text(row: Mapping[str, Any] | None) -> str:
    return "{" + ", ".join(f"{k}: {v!r}" for k, v in (row or {}).items()) + "}"


@dataclass(frozen=True)
class QueryVerdict:
    """What the sink holds against the batch result."""

    mode: str
    key: tuple[str, ...]
    expected_rows: int
    written_rows: int  # the rows the comparison read: the last per KEY, the last batch, or all
    missing: tuple[RowProblem, ...] = ()
    extra: tuple[RowProblem, ...] = ()
    different: tuple[RowProblem, ...] = ()
    doubled: tuple[RowProblem, ...] = ()
    # Boundary-dependent results: rows allowed to be missing or to differ, and why.
    boundary_dependent: bool = False
    not_yet_written: tuple[RowProblem, ...] = ()
    late_dropped: int = 0
    problems: tuple[str, ...] = field(default=())  # what made it fail beyond the rows

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.different or self.doubled or self.problems)

    def summary_lines(self, most: int = 5) -> list[str]:
        verdict = "OK" if self.ok else "WRONG"
        lines = [
            f"{verdict}: {self.mode} mode, KEY {list(self.key)}: {self.written_rows} row(s) "
            f"against {self.expected_rows} in the batch result"
        ]
        for label, rows in (
            ("missing", self.missing),
            ("extra", self.extra),
            ("different", self.different),
            ("written twice", self.doubled),
        ):
            if rows:
                shown = "; ".join(r.words(self.key) for r in rows[:most])
                more = f" (+{len(rows) - most} more)" if len(rows) > most else ""
                lines.append(f"{label} {len(rows)}: {shown}{more}")
        if self.not_yet_written:
            lines.append(
                f"not written yet {len(self.not_yet_written)} (after every written KEY: still "
                f"open when the run stopped)"
            )
        if self.boundary_dependent:
            lines.append(f"records Spark dropped as late: {self.late_dropped}")
        lines += list(self.problems)
        return lines


def compare(
    expected: Iterable[Row],
    written: Iterable[Row],
    *,
    mode: str,
    key: Sequence[str],
    boundary_dependent: bool = False,
    late_dropped: int = 0,
) -> QueryVerdict:
    """The sink's rows (`written`, each with its batch id) held against the batch result."""
    if mode not in OUTPUT_MODES:
        raise ValueError(f"output mode {mode!r}: one of {', '.join(OUTPUT_MODES)}")
    expected, written = [_columns(r) for r in expected], list(written)
    if mode == "append":
        return _append(expected, written, tuple(key), boundary_dependent, late_dropped)
    final = _last_per_key(written, key) if mode == "update" else _last_batch(written)
    return _keyed(expected, final, mode, tuple(key), boundary_dependent, late_dropped)


def _last_per_key(written: list[Row], key: Sequence[str]) -> list[dict[str, Any]]:
    """Update mode: per KEY, the row the latest batch wrote (the last one within a batch)."""
    last: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in sorted(written, key=lambda r: r.get(BATCH_COLUMN, 0)):  # stable within a batch
        last[key_of(row, key)] = _columns(row)
    return list(last.values())


def _last_batch(written: list[Row]) -> list[dict[str, Any]]:
    """Complete mode: the whole result, as the last batch wrote it."""
    if not written:
        return []
    last = max(r.get(BATCH_COLUMN, 0) for r in written)
    return [_columns(r) for r in written if r.get(BATCH_COLUMN, 0) == last]


def _by_key(rows: list[dict[str, Any]], key: tuple[str, ...]) -> dict[tuple[Any, ...], dict]:
    return {key_of(r, key): r for r in rows}


def _keyed(
    expected: list[dict[str, Any]],
    final: list[dict[str, Any]],
    mode: str,
    key: tuple[str, ...],
    boundary_dependent: bool,
    late_dropped: int,
) -> QueryVerdict:
    problems = _unique_keys(expected, key, "the batch result")
    if mode == "complete":
        problems += _unique_keys(final, key, "the last batch")
    want, got = _by_key(expected, key), _by_key(final, key)
    missing = [RowProblem(k, want[k], None) for k in want if k not in got]
    extra = [RowProblem(k, None, got[k]) for k in got if k not in want]
    different = [RowProblem(k, want[k], got[k]) for k in want if k in got and want[k] != got[k]]
    verdict = QueryVerdict(
        mode,
        key,
        len(expected),
        len(final),
        tuple(missing),
        tuple(extra),
        tuple(different),
        problems=tuple(problems),
    )
    return _boundary(verdict, set(got), late_dropped) if boundary_dependent else verdict


def _append(
    expected: list[dict[str, Any]],
    written: list[Row],
    key: tuple[str, ...],
    boundary_dependent: bool,
    late_dropped: int,
) -> QueryVerdict:
    want = Counter(_frozen(r) for r in expected)
    got = Counter(_frozen(r) for r in written)
    row_of = {_frozen(r): _columns(r) for r in [*expected, *written]}
    missing, extra, doubled = [], [], []
    for row, times in want.items():
        if got[row] < times:
            missing.append(RowProblem(key_of(row_of[row], key), row_of[row], None))
    for row, times in got.items():
        if row not in want:
            extra.append(RowProblem(key_of(row_of[row], key), None, row_of[row], times))
        elif times > want[row]:
            doubled.append(RowProblem(key_of(row_of[row], key), row_of[row], row_of[row], times))
    verdict = QueryVerdict(
        "append",
        key,
        len(expected),
        len(written),
        tuple(missing),
        tuple(extra),
        (),
        tuple(doubled),
    )
    if not boundary_dependent:
        return verdict
    # Compared by KEY instead of by whole row: a window written with fewer records is a
    # difference, not a missing row and an extra one.
    keyed = _keyed(expected, [_columns(r) for r in written], "append", key, True, late_dropped)
    twice = _twice_per_key(written, key)
    return QueryVerdict(
        "append",
        key,
        keyed.expected_rows,
        keyed.written_rows,
        keyed.missing,
        keyed.extra,
        keyed.different,
        tuple(twice),
        True,
        keyed.not_yet_written,
        late_dropped,
        keyed.problems,
    )


def _twice_per_key(written: list[Row], key: tuple[str, ...]) -> list[RowProblem]:
    counts = Counter(key_of(r, key) for r in written)
    first = {key_of(r, key): _columns(r) for r in written}
    return [RowProblem(k, first[k], first[k], n) for k, n in counts.items() if n > 1]


def _boundary(
    verdict: QueryVerdict, written_keys: set[tuple[Any, ...]], late_dropped: int
) -> QueryVerdict:
    """What must still hold when batch boundaries shape the result (the module docstring)."""
    last_written = max(written_keys, default=None, key=_sortable)
    tail = [
        p
        for p in verdict.missing
        if last_written is None or _sortable(p.key) > _sortable(last_written)
    ]
    inner = [p for p in verdict.missing if p not in tail]
    problems = list(verdict.problems)
    different = verdict.different
    if different and len(different) <= late_dropped:
        different = ()  # fewer records in a window: the records Spark dropped as late
    elif different:
        problems.append(
            f"{len(different)} row(s) differ, more than the {late_dropped} record(s) Spark "
            f"dropped as late"
        )
    return QueryVerdict(
        verdict.mode,
        verdict.key,
        verdict.expected_rows,
        verdict.written_rows,
        tuple(inner),
        verdict.extra,
        different,
        verdict.doubled,
        True,
        tuple(tail),
        late_dropped,
        tuple(problems),
    )


def _sortable(key: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    """A KEY in the order its values have: numbers as numbers, anything else as its text
    (an ISO timestamp sorts in time order as text)."""
    return tuple((0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in key)


def _unique_keys(rows: list[dict[str, Any]], key: tuple[str, ...], where: str) -> list[str]:
    counts = Counter(key_of(r, key) for r in rows)
    twice = [k for k, n in counts.items() if n > 1]
    if not twice:
        return []
    return [
        f"KEY {list(key)} does not name one row of {where}: {len(twice)} KEY(s) have several, "
        f"e.g. {twice[0]!r}; name every column that tells two result rows apart"
    ]
