"""The correctness check of seed 001, in code: read the output log, say what was missed or doubled.

The Spark app writes two lines per message to `log/streaming-output.log`:

    [INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = 890
    [INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Experience: 890 -> 890

The Spark app's `--output-format v2` (the upgrade scenario's new version) also names the
message's partition and offset, `v2 Experience-0@889: 890 -> 890`; both formats may follow each
other in one log and are read alike.

The value is the message's identity (the producer counts 1, 2, 3…; the key may be negative).
Every value from 1 to the highest seen must appear exactly once, and the `Count = n` lines must
run 1, 2, 3… each paired with its message. A count that falls back to 1 means the state was lost
(a hard reset); one that falls back elsewhere means a batch was written twice; one that skips
ahead means output was lost after the state moved on.

The report is plain data so a scenario can state what it expects and compare:
`report.missing == (ValueRange(6, 9),)`, `report.duplicated == {3: 2}`,
`report.count_resets == (12,)`.

Usage: `verify_file(Path("log/streaming-output.log")).ok`
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from spark_app.output_line import CountLine, MessageLine, parse_line

__all__ = [
    "CountBreak",
    "Unpaired",
    "ValueRange",
    "VerifyReport",
    "ranges_of",
    "verify",
    "verify_file",
]

BreakKind = Literal["reset", "rewind", "jump"]


@dataclass(frozen=True, order=True)
class ValueRange:
    """The values `first..last`, both included."""

    first: int
    last: int

    def __len__(self) -> int:
        return self.last - self.first + 1

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.first <= value <= self.last

    def __str__(self) -> str:
        return str(self.first) if self.first == self.last else f"{self.first}..{self.last}"


def ranges_of(values: Iterable[int]) -> tuple[ValueRange, ...]:
    """Fold values into the fewest ascending ranges: {1, 2, 3, 7} -> (1..3, 7)."""
    ranges: list[ValueRange] = []
    for value in sorted(set(values)):
        if ranges and value == ranges[-1].last + 1:
            ranges[-1] = ValueRange(ranges[-1].first, value)
        else:
            ranges.append(ValueRange(value, value))
    return tuple(ranges)


@dataclass(frozen=True)
class CountBreak:
    """A place where `Count = n` did not follow on from the count before it.

    `kind` is "reset" when the count fell back to 1 (state lost), "rewind" when it fell back
    elsewhere (a batch written again), "jump" when it skipped ahead (output lost).
    """

    line: int
    value: int
    expected: int
    actual: int
    kind: BreakKind

    def __str__(self) -> str:
        return (f"line {self.line}: value {self.value} has Count = {self.actual}, "
                f"expected {self.expected} ({self.kind})")


@dataclass(frozen=True)
class Unpaired:
    """A `Count` line not followed by its message line, or a message line without its `Count`."""

    line: int
    text: str
    problem: Literal["count without message", "message without count"]


@dataclass(frozen=True)
class VerifyReport:
    """What the output log says about missed and doubled messages."""

    messages: int
    distinct: int
    lowest: int | None
    highest: int | None
    first_value: int | None
    last_value: int | None
    final_count: int | None
    missing: tuple[ValueRange, ...]
    duplicated: dict[int, int] = field(hash=False)
    count_breaks: tuple[CountBreak, ...]
    unpaired: tuple[Unpaired, ...]
    ignored_lines: int
    # Every value in log order, for "what came first after the restart" questions.
    values: tuple[int, ...] = field(default=(), repr=False, compare=False)
    # How many message lines were in the Spark app's --output-format v2.
    v2_messages: int = 0
    # Messages whose value is not a whole number: not the producer's, so they have no identity
    # to check, but they were counted (their Count lines take part in the pairing).
    foreign_messages: int = 0
    # The first line that is neither blank nor an output line (line number, text), if any.
    first_ignored: tuple[int, str] | None = None

    @property
    def missing_count(self) -> int:
        return sum(len(r) for r in self.missing)

    @property
    def count_resets(self) -> tuple[int, ...]:
        """The values at which the count fell back to 1, in log order."""
        return tuple(b.value for b in self.count_breaks if b.kind == "reset")

    @property
    def counts_consistent(self) -> bool:
        return not self.count_breaks and not self.unpaired

    @property
    def exactly_once(self) -> bool:
        return not self.missing and not self.duplicated

    @property
    def ok(self) -> bool:
        """Every value 1..highest exactly once, the counts run 1, 2, 3… with the messages, and
        the file is an output log: at least one message, and no line that is not ours."""
        return (self.exactly_once and self.counts_consistent and self.messages > 0
                and self.ignored_lines == 0)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (duplicates as a list: JSON keys cannot be numbers)."""
        return {
            "ok": self.ok,
            "exactly_once": self.exactly_once,
            "counts_consistent": self.counts_consistent,
            "messages": self.messages,
            "distinct": self.distinct,
            "lowest": self.lowest,
            "highest": self.highest,
            "first_value": self.first_value,
            "last_value": self.last_value,
            "final_count": self.final_count,
            "missing": [[r.first, r.last] for r in self.missing],
            "missing_count": self.missing_count,
            "duplicated": [{"value": v, "times": n} for v, n in sorted(self.duplicated.items())],
            "count_breaks": [vars(b) for b in self.count_breaks],
            "count_resets": list(self.count_resets),
            "unpaired": [vars(u) for u in self.unpaired],
            "ignored_lines": self.ignored_lines,
            "first_ignored": list(self.first_ignored) if self.first_ignored else None,
            "v2_messages": self.v2_messages,
            "foreign_messages": self.foreign_messages,
        }

    def summary_lines(self) -> list[str]:
        """The report in plain sentences, most important first."""
        head = "OK: every message exactly once, counts consistent" if self.ok else "NOT OK"
        lines = [
            head,
            f"messages seen {self.messages}, distinct values {self.distinct}, "
            f"highest {self.highest}, final count {self.final_count}",
        ]
        if self.missing:
            shown = ", ".join(str(r) for r in self.missing[:10])
            more = " …" if len(self.missing) > 10 else ""
            lines.append(f"missing {self.missing_count} value(s): {shown}{more}")
        if self.duplicated:
            shown = ", ".join(f"{v}×{n}" for v, n in sorted(self.duplicated.items())[:10])
            more = " …" if len(self.duplicated) > 10 else ""
            lines.append(f"duplicated {len(self.duplicated)} value(s): {shown}{more}")
        for b in self.count_breaks[:10]:
            lines.append(
                f"count {b.kind} at line {b.line} (value {b.value}): "
                f"expected Count = {b.expected}, got {b.actual}"
            )
        for u in self.unpaired[:10]:
            lines.append(f"{u.problem} at line {u.line}: {_clip(u.text)}")
        if self.messages == 0:
            lines.append("no output lines at all: is this the Spark app's streaming-output.log?")
        if self.first_ignored is not None:
            line, text = self.first_ignored
            lines.append(f"{self.ignored_lines} line(s) are not output lines, the first at line "
                         f"{line}: {_clip(text)!r}")
        if self.foreign_messages:
            lines.append(f"{self.foreign_messages} message(s) with a value that is not a whole "
                         f"number (not the producer's counter): counted, not checked")
        return lines


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def verify(lines: Iterable[str]) -> VerifyReport:
    """Check the output log's lines; blank lines are skipped, any other line makes it NOT OK."""
    values: list[int] = []
    breaks: list[CountBreak] = []
    unpaired: list[Unpaired] = []
    ignored = 0
    first_ignored: tuple[int, str] | None = None
    v2_messages = 0
    foreign = 0
    pending: tuple[int, int, str] | None = None  # (line number, count, text) awaiting its message
    previous_count: int | None = None
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        line = parse_line(text)
        if isinstance(line, CountLine):
            if pending is not None:
                unpaired.append(Unpaired(pending[0], pending[2], "count without message"))
            pending = (number, line.count, text)
        elif isinstance(line, MessageLine):
            if line.value is None:
                foreign += 1
            else:
                values.append(line.value)
            v2_messages += line.v2
            if pending is None:
                unpaired.append(Unpaired(number, text, "message without count"))
                continue
            count = pending[1]
            expected = 1 if previous_count is None else previous_count + 1
            if count != expected:
                breaks.append(CountBreak(pending[0], line.value if line.value is not None else 0,
                                         expected, count, _kind(count, expected)))
            previous_count, pending = count, None
        elif text.strip():
            ignored += 1
            first_ignored = first_ignored or (number, text)
    if pending is not None:
        unpaired.append(Unpaired(pending[0], pending[2], "count without message"))
    return replace(_report(values, breaks, unpaired, ignored, previous_count),
                   v2_messages=v2_messages, foreign_messages=foreign, first_ignored=first_ignored)



def _kind(actual: int, expected: int) -> BreakKind:
    if actual > expected:
        return "jump"
    return "reset" if actual == 1 else "rewind"


def _report(values: list[int], breaks: list[CountBreak], unpaired: list[Unpaired],
            ignored: int, final_count: int | None) -> VerifyReport:
    seen = Counter(values)
    highest = max(seen) if seen else None
    return VerifyReport(
        messages=len(values),
        distinct=len(seen),
        lowest=min(seen) if seen else None,
        highest=highest,
        first_value=values[0] if values else None,
        last_value=values[-1] if values else None,
        final_count=final_count,
        missing=_gaps(seen.keys()),
        duplicated={v: n for v, n in sorted(seen.items()) if n > 1},
        count_breaks=tuple(breaks),
        unpaired=tuple(unpaired),
        ignored_lines=ignored,
        values=tuple(values),
    )


def _gaps(values: Iterable[int]) -> tuple[ValueRange, ...]:
    """The values of 1..highest that are absent, as ranges, without listing 1..highest: a
    value of 3,000,000,000 costs two comparisons, not three billion set entries."""
    gaps = []
    previous = 0
    for value in sorted(v for v in set(values) if v > 0):
        if value > previous + 1:
            gaps.append(ValueRange(previous + 1, value - 1))
        previous = value
    return tuple(gaps)


def verify_file(path: Path) -> VerifyReport:
    """Verify a log file; raises OSError when it cannot be read (the CLI turns that into exit 2)."""
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        return verify(handle)
