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

Held against a record of what was sent (`scenarios/checker/sent_record.py`: the producer's log or the
topic), the check is stricter: every message sent must appear exactly once, so a value lost
after the highest one written is missing too, and a value written but never sent is reported
(`not_sent`). `report.sent` then says what the record held.

Usage:
    verify_file(Path("log/streaming-output.log")).ok
    verify_sent(verify_file(output_log), read_producer_log(Path("log/kafka.log"), "Experience")).ok
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from spark_app.lines.output_line import CountLine, EventLine, MessageLine, parse_line

if TYPE_CHECKING:  # the verifier stays a pure module: no Kafka client imported for a type
    from scenarios.checker.sent_record import SentRecord

__all__ = [
    "CountBreak",
    "SentCheck",
    "Unpaired",
    "ValueRange",
    "VerifyReport",
    "ranges_of",
    "reading_line",
    "verify",
    "verify_file",
    "verify_sent",
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
        return (
            f"line {self.line}: value {self.value} has Count = {self.actual}, "
            f"expected {self.expected} ({self.kind})"
        )


@dataclass(frozen=True)
class Unpaired:
    """A `Count` line not followed by its message line, or a message line without its `Count`."""

    line: int
    text: str
    problem: Literal["count without message", "message without count"]


@dataclass(frozen=True)
class SentCheck:
    """The output log held against a record of what was sent (see `verify_sent`)."""

    source: str
    # Messages the record holds: whole-number values, foreign ones, and deleted (unnamed) ones.
    messages: int
    distinct: int
    highest: int | None
    foreign: int
    deleted: int
    # Values written but never sent.
    not_sent: tuple[ValueRange, ...]
    # Values written that a partial record (a topic retention had cut) cannot vouch for.
    unchecked: int
    # Values the record holds more than once (value -> times): each is expected that often.
    resent: dict[int, int] = field(hash=False)

    @property
    def not_sent_count(self) -> int:
        return sum(len(r) for r in self.not_sent)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "messages": self.messages,
            "distinct": self.distinct,
            "highest": self.highest,
            "foreign": self.foreign,
            "deleted": self.deleted,
            "not_sent": [[r.first, r.last] for r in self.not_sent],
            "not_sent_count": self.not_sent_count,
            "unchecked": self.unchecked,
            "resent": [{"value": v, "times": n} for v, n in sorted(self.resent.items())],
        }

    def summary_lines(self) -> list[str]:
        lines = [f"sent {self.messages} message(s) per {self.source}, highest value {self.highest}"]
        if self.not_sent:
            shown = ", ".join(str(r) for r in self.not_sent[:10])
            more = " …" if len(self.not_sent) > 10 else ""
            lines.append(f"written but never sent {self.not_sent_count} value(s): {shown}{more}")
        if self.deleted:
            lines.append(
                f"{self.deleted} message(s) were deleted from the topic before it was "
                f"read, so {self.unchecked} value(s) written could not be checked and "
                "any of those lost cannot be seen; the producer's log is the fuller "
                "record: --sent log/kafka.log"
            )
        if self.resent:
            shown = ", ".join(f"{v}×{n}" for v, n in sorted(self.resent.items())[:10])
            lines.append(
                f"the record holds {len(self.resent)} value(s) more than once, each "
                f"expected that often (a producer restarted on an emptied topic?): {shown}"
            )
        if self.foreign:
            lines.append(
                f"{self.foreign} message(s) sent with a value that is not a whole "
                "number (not the producer's counter): not checked"
            )
        return lines


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
    # Event lines (a transformWithState timer fired, a TTL'd state expired): not messages,
    # so they take no part in the pairing or the counts.
    events: tuple[EventLine, ...] = field(default=(), compare=False)
    # Set when the log was held against a record of what was sent: then `missing` and
    # `duplicated` count against that record, not against 1..highest.
    sent: SentCheck | None = None

    @property
    def missing_count(self) -> int:
        return sum(len(r) for r in self.missing)

    @property
    def count_resets(self) -> tuple[int, ...]:
        """The values at which the count fell back to 1, in log order."""
        return tuple(b.value for b in self.count_breaks if b.kind == "reset")

    @property
    def runs(self) -> int:
        """How many runs the log holds: a count that starts over at 1 begins a new one (a new
        checkpoint, e.g. the demo's run followed by the README's two terminals)."""
        return len(self.count_resets) + 1 if self.messages else 0

    @property
    def counts_consistent(self) -> bool:
        return not self.count_breaks and not self.unpaired

    @property
    def exactly_once(self) -> bool:
        return not self.missing and not self.duplicated

    @property
    def ok(self) -> bool:
        """Every value 1..highest (or every value sent) exactly once, nothing written that was
        not sent, the counts run 1, 2, 3… with the messages, and the file is an output log: at
        least one message, and no line that is not ours."""
        return (
            self.exactly_once
            and self.counts_consistent
            and self.messages > 0
            and self.ignored_lines == 0
            and (self.sent is None or not self.sent.not_sent)
        )

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
            "runs": self.runs,
            "unpaired": [vars(u) for u in self.unpaired],
            "ignored_lines": self.ignored_lines,
            "first_ignored": list(self.first_ignored) if self.first_ignored else None,
            "v2_messages": self.v2_messages,
            "foreign_messages": self.foreign_messages,
            "events": len(self.events),
            "sent": self.sent.to_dict() if self.sent else None,
        }

    def summary_lines(self) -> list[str]:
        """The report in plain sentences, most important first."""
        what = "every message sent" if self.sent else "every message"
        head = f"OK: {what} exactly once, counts consistent" if self.ok else "NOT OK"
        lines = [
            head,
            f"messages seen {self.messages}, distinct values {self.distinct}, "
            f"highest {self.highest}, final count {self.final_count}",
        ]
        if self.sent is not None:
            lines += self.sent.summary_lines()
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
            lines.append(
                f"{self.ignored_lines} line(s) are not output lines, the first at line "
                f"{line}: {_clip(text)!r}"
            )
        if self.foreign_messages:
            lines.append(
                f"{self.foreign_messages} message(s) with a value that is not a whole "
                f"number (not the producer's counter): counted, not checked"
            )
        return lines


def reading_line(path: Path, report: VerifyReport) -> str:
    """Which file and how many runs `verify` read; with several, how to check a new one alone.

    `python -m spark_app reset` moves the output log aside (with `--log-dir` for a log
    elsewhere than `log/`), so the next run's log holds that run only."""
    runs = f"{report.runs} run{'' if report.runs == 1 else 's'}"
    if report.runs <= 1:
        return f"read {path}: {runs}"
    log_dir = path.parent
    flags = (
        "" if log_dir == Path("log") else f" --log-dir {log_dir} (and the app's --checkpoint-dir)"
    )
    starts = ", ".join(str(v) for v in report.count_resets[:10])
    values = "value" if len(report.count_resets) == 1 else "values"
    return (
        f"read {path}: {runs} (the count started over at 1 at {values} {starts}): earlier runs "
        f"are mixed in; to check a new run alone, start clean with "
        f"`uv run python -m spark_app reset{flags}`"
    )


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
    events: list[EventLine] = []
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
                breaks.append(
                    CountBreak(
                        pending[0],
                        line.value if line.value is not None else 0,
                        expected,
                        count,
                        _kind(count, expected),
                    )
                )
            previous_count, pending = count, None
        elif isinstance(line, EventLine):
            events.append(line)
        elif text.strip():
            ignored += 1
            first_ignored = first_ignored or (number, text)
    if pending is not None:
        unpaired.append(Unpaired(pending[0], pending[2], "count without message"))
    return replace(
        _report(values, breaks, unpaired, ignored, previous_count),
        v2_messages=v2_messages,
        foreign_messages=foreign,
        first_ignored=first_ignored,
        events=tuple(events),
    )


def _kind(actual: int, expected: int) -> BreakKind:
    if actual > expected:
        return "jump"
    return "reset" if actual == 1 else "rewind"


def _report(
    values: list[int],
    breaks: list[CountBreak],
    unpaired: list[Unpaired],
    ignored: int,
    final_count: int | None,
) -> VerifyReport:
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


def verify_sent(report: VerifyReport, record: SentRecord) -> VerifyReport:
    """The output log's report held against what was sent: each value is expected as often as
    the record holds it (once, normally).

    Missing: values written fewer times than sent, also above the highest written.
    Duplicated: values written more often than sent (at least twice). Not sent: values written
    that the record does not hold; when the record is partial (retention deleted records it
    cannot name), only values above its highest count, since retention deletes the oldest
    messages and the producer's values only grow; the rest are `unchecked`.
    Read the output log before the record: a message is in the producer's log and the topic
    before the Spark app can have written it.
    """
    written, sent = Counter(report.values), Counter(record.values)
    highest_sent = max(sent) if sent else None
    absent = [v for v in written if v not in sent]
    checkable = [
        v for v in absent if record.complete or (highest_sent is not None and v > highest_sent)
    ]
    check = SentCheck(
        source=record.source,
        messages=record.messages + record.deleted,
        distinct=len(sent),
        highest=highest_sent,
        foreign=record.foreign,
        deleted=record.deleted,
        not_sent=ranges_of(checkable),
        unchecked=len(absent) - len(checkable),
        resent={v: n for v, n in sorted(sent.items()) if n > 1},
    )
    return replace(
        report,
        missing=ranges_of(v for v, n in sent.items() if written[v] < n),
        duplicated={v: n for v, n in sorted(written.items()) if n > max(sent[v], 1)},
        sent=check,
    )
