"""Expected outcomes, stated before and compared after: each check is a named, printable verdict.

A scenario predicts what it will see ("values 41..47 missing, nothing else") from the broker's
offsets and the checkpoint, then compares the verifier's report with it. An expected failure
that happens as predicted is a check that holds.

Usage:
    checks = [exactly_once(report, n=120), missing_exactly(report, [ValueRange(41, 47)])]
    all(c.held for c in checks)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from scenarios.checker.query_results import QueryVerdict
from scenarios.checker.verify import ValueRange, VerifyReport, ranges_of

__all__ = [
    "STEP_MARK",
    "Check",
    "check",
    "count_resets_at",
    "counted_once",
    "duplicated_exactly",
    "equals",
    "exactly_once",
    "missing_exactly",
    "outcome_of_runs",
    "rows_until_last_commit",
    "value_at_offset",
    "within",
]

T = TypeVar("T")


# Between a step's title and a check's name where one label must carry both (a table's row).
STEP_MARK = " › "


@dataclass(frozen=True)
class Check:
    """One expectation and whether it held; `step` is the title of the step it belongs to (the
    stage fills it in: a check made inside `with stage.step(...)` belongs to that step)."""

    name: str
    held: bool
    expected: str
    actual: str
    step: str = ""

    @property
    def detail(self) -> str:
        return f"expected {self.expected}; got {self.actual}"

    @property
    def label(self) -> str:
        """The check named with its step, where no step heading is above it (a verdict table,
        a matrix row, a JUnit case): `Stop the app › checkpoint resumes after …`."""
        return f"{self.step}{STEP_MARK}{self.name}" if self.step else self.name


def check(name: str, held: bool, expected: object, actual: object) -> Check:
    return Check(name, bool(held), str(expected), str(actual))


def equals(name: str, actual: T, expected: T, shown: Callable[[T], object] = str) -> Check:
    """`actual` is `expected`, both written the same way (`shown`), so a reader compares like
    with like: `equals("Count after the restart", count, 42, lambda n: f"Count = {n}")`."""
    return check(name, actual == expected, shown(expected), shown(actual))


def _ranges_text(ranges: Iterable[ValueRange]) -> str:
    text = ", ".join(str(r) for r in ranges)
    return f"[{text}]" if text else "none"


def exactly_once(report: VerifyReport, n: int) -> Check:
    """Every value 1..n exactly once, the counts consistent and the final count n.

    Given a report held against what was sent (`Stage.verify_sent`), also: n messages sent,
    none of them missing (the last ones included), nothing written that was not sent.
    """
    actual = (
        f"highest {report.highest}, final count {report.final_count}, "
        f"missing {_ranges_text(report.missing)}, duplicated {len(report.duplicated)}, "
        f"count breaks {len(report.count_breaks)}, unpaired {len(report.unpaired)}"
    )
    held = report.ok and report.highest == n and report.final_count == n
    expected = f"1..{n} each once, final count {n}"
    if report.sent is not None:
        actual += (
            f", sent {report.sent.messages}, "
            f"written but not sent {_ranges_text(report.sent.not_sent)}"
        )
        held = held and report.sent.messages == n
        expected += f", {n} sent"
    return check("exactly once", held, expected, actual)


def missing_exactly(report: VerifyReport, expected: Iterable[ValueRange]) -> Check:
    wanted = ranges_of(v for r in expected for v in range(r.first, r.last + 1))
    return check(
        "missing values",
        report.missing == wanted,
        _ranges_text(wanted),
        _ranges_text(report.missing),
    )


def duplicated_exactly(report: VerifyReport, expected: Mapping[int, int]) -> Check:
    wanted = dict(sorted(expected.items()))

    def text(d: Mapping[int, int]) -> str:
        if not d:
            return "none"
        times = sorted(set(d.values()))
        return "; ".join(
            f"{_ranges_text(ranges_of(v for v, n in d.items() if n == t))} ×{t}" for t in times
        )

    return check(
        "duplicated values", report.duplicated == wanted, text(wanted), text(report.duplicated)
    )


def count_resets_at(report: VerifyReport, values: Iterable[int]) -> Check:
    wanted = tuple(values)
    other = [b for b in report.count_breaks if b.kind != "reset"]
    actual = f"resets at {list(report.count_resets)}, other breaks {len(other)}"
    held = report.count_resets == wanted and not other and not report.unpaired
    return check("count resets", held, f"resets at {list(wanted)}, no other breaks", actual)


def outcome_of_runs(runs: Iterable[ValueRange]) -> tuple[tuple[ValueRange, ...], dict[int, int]]:
    """What the log must hold after runs that each wrote the values `first..last` once.

    Returns (missing ranges, duplicated value -> times): the prediction for a log written by a
    first run, then restarts from a deleted checkpoint that began elsewhere.
    """
    times: dict[int, int] = {}
    for run in runs:
        for value in range(run.first, run.last + 1):
            times[value] = times.get(value, 0) + 1
    highest = max(times, default=0)
    missing = ranges_of(v for v in range(1, highest + 1) if v not in times)
    return missing, {v: n for v, n in sorted(times.items()) if n > 1}


def counted_once(name: str, report: VerifyReport) -> Check:
    """The output log so far holds every value once and consistent counts: the counter's
    exactly once while it runs (exactly_once also pins the highest value)."""
    return check(
        name,
        report.ok,
        "every value once, counts consistent",
        "; ".join(report.summary_lines()[1:]),
    )


def rows_until_last_commit(name: str, verdict: QueryVerdict) -> Check:
    """A query's rows held by the oracle over every record up to its checkpoint's last commit
    (Output.judge_query_until_last_commit's verdict)."""
    return check(
        name,
        verdict.ok,
        "the rows of the query over every record up to the checkpoint's last commit",
        "; ".join(verdict.summary_lines()),
    )


def value_at_offset(values: list[int]) -> Check:
    """The producer's counter as the topic holds it: value v at offset v-1 (the first offset is
    0, each message takes the next), so the first value a run writes says where it read from."""
    in_order = bool(values) and values == list(range(1, len(values) + 1))
    return check(
        "value v sits at offset v-1",
        in_order,
        "values 1, 2, 3… from the topic's first offset, 0",
        f"values 1..{len(values)} in order" if in_order else f"values {values[:5]}…",
    )


def within(name: str, value: int, low: int, high: int) -> Check:
    """A number known only to lie between two broker readings taken before and after it was fixed.
    Two equal readings pin it: the learner reads `0`, not `between 0 and 0`."""
    expected = str(low) if low == high else f"between {low} and {high}"
    return check(name, low <= value <= high, expected, value)
