"""The nemesis's one checker: after minutes of faults, was every value counted exactly once?

The producer's acknowledgements are the truth about what was sent (`sent-records.jsonl`: each
value with the offset Kafka gave it). Against them:

- **Kafka's failure**: a value Kafka acknowledged that the topic no longer holds, at an offset
  retention has not reached, was lost by Kafka. It is reported as Kafka's, and is not held
  against Spark when the output lacks it too.
- **Retention's loss**: with a short retention the app runs with failOnDataLoss=false. A value
  whose offset retention deleted before the checkpoint had committed past it (the app was down,
  paused, cut off, or behind) may be missing; each such range is named, with when retention
  deleted it and the fault it fell in. With retention endless nothing may be missing.
- **Spark's failure**: anything else missing, any value written twice, any value written that
  was never sent, any break in the counts. The run names the lowest such value and the first
  fault after which the output went wrong: the fault active when that value was sent, or else
  the first one after it.

The checkpoint's committed offset is known from samples every half second or so: an offset
deleted between two samples while the checkpoint passed it in the same interval is given the
benefit of the doubt (counted as deleted before it was read).

Usage:
    deletions = deletions_from_samples([(0.5, 0, None), (1.0, 0, 4), (9.5, 12, 8)])
    verdict = judge_nemesis(report, acked, held, earliest_end, deletions, spans, short=True)
    print("\\n".join(verdict.summary_lines()))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scenarios.checker.fault_history import FaultSpan
from scenarios.checker.verify import CountBreak, ValueRange, VerifyReport, ranges_of

__all__ = [
    "Acked",
    "KafkaDeletion",
    "NemesisVerdict",
    "RetentionLoss",
    "deletions_from_samples",
    "judge_nemesis",
    "lost_offset_ranges",
]


@dataclass(frozen=True)
class Acked:
    """A value Kafka acknowledged: the offset it got, and when it was sent (Unix time)."""

    value: int
    offset: int
    wall: float


@dataclass(frozen=True)
class KafkaDeletion:
    """Retention moved the topic's earliest offset from `first` to `until` (exclusive), seen at
    `at` (the timeline's seconds); `committed_before`: the checkpoint's committed offset at the
    sample before (None: no commit yet)."""

    at: float
    first: int
    until: int
    committed_before: int | None

    def unread(self) -> range:
        """The offsets it deleted that the checkpoint had not committed past."""
        start = (
            self.first if self.committed_before is None else max(self.first, self.committed_before)
        )
        return range(start, self.until)


@dataclass(frozen=True)
class RetentionLoss:
    """Values retention deleted before the app read them, and missing from the output: from
    one retention check, or from several in a row while the same fault kept the app away."""

    values: ValueRange
    offsets: tuple[int, int]  # first, last
    deleted_at: float
    during: str
    deleted_until: float | None = None  # the last check's time, when several deleted them

    def words(self) -> str:
        when = f"at {self.deleted_at:.1f} s"
        if self.deleted_until is not None and self.deleted_until > self.deleted_at:
            when = f"between {self.deleted_at:.1f} s and {self.deleted_until:.1f} s"
        return (
            f"values {self.values} (offsets {self.offsets[0]}..{self.offsets[1]}): deleted by "
            f"retention {when} before the app read them ({self.during})"
        )

    def joined(self, later: RetentionLoss) -> RetentionLoss | None:
        """This loss and `later` as one, when `later` follows on in values and fault."""
        if later.values.first != self.values.last + 1 or later.during != self.during:
            return None
        return RetentionLoss(
            ValueRange(self.values.first, later.values.last),
            (self.offsets[0], later.offsets[1]),
            self.deleted_at,
            self.during,
            later.deleted_until or later.deleted_at,
        )


def deletions_from_samples(
    samples: Iterable[tuple[float, int | None, int | None]],
) -> list[KafkaDeletion]:
    """Each step up of Kafka's earliest offset among (at, earliest, committed) samples, with the
    highest committed offset seen before it. Gaps (None) are skipped."""
    deletions: list[KafkaDeletion] = []
    earliest: int | None = None
    committed: int | None = None
    for at, seen_earliest, seen_committed in samples:
        if seen_earliest is not None:
            if earliest is not None and seen_earliest > earliest:
                deletions.append(KafkaDeletion(at, earliest, seen_earliest, committed))
            earliest = seen_earliest if earliest is None else max(earliest, seen_earliest)
        if seen_committed is not None:
            committed = seen_committed if committed is None else max(committed, seen_committed)
    return deletions


def lost_offset_ranges(deletions: Iterable[KafkaDeletion]) -> list[tuple[int, int]]:
    """The offset ranges [first, until) retention deleted before the checkpoint passed them,
    those that meet joined (one skip of Spark's may span several retention checks)."""
    ranges: list[tuple[int, int]] = []
    for deletion in deletions:
        unread = deletion.unread()
        if not len(unread):
            continue
        if ranges and unread.start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], unread.stop))
        else:
            ranges.append((unread.start, unread.stop))
    return ranges


@dataclass(frozen=True)
class NemesisVerdict:
    """What the checker found; `ok` only when nothing is Spark's or Kafka's failure."""

    sent: int
    written: int
    kafka_lost: tuple[ValueRange, ...]
    retention_lost: tuple[RetentionLoss, ...]
    missing: tuple[ValueRange, ...]
    duplicated: dict[int, int] = field(hash=False)
    not_sent: tuple[ValueRange, ...] = ()
    count_breaks: tuple[CountBreak, ...] = ()
    wrong_from: int | None = None
    culprit: FaultSpan | None = None

    @property
    def kafka_failed(self) -> bool:
        return bool(self.kafka_lost)

    @property
    def spark_failed(self) -> bool:
        return bool(self.missing or self.duplicated or self.not_sent or self.count_breaks)

    @property
    def ok(self) -> bool:
        return not self.kafka_failed and not self.spark_failed

    @property
    def missing_count(self) -> int:
        return sum(len(r) for r in self.missing)

    def summary_lines(self) -> list[str]:
        lost = sum(len(r.values) for r in self.retention_lost)
        if self.ok:
            head = f"OK: every value sent counted exactly once ({self.sent} sent"
            head += (
                f", {lost} deleted by retention before they were read, each named)" if lost else ")"
            )
        else:
            blame = " and ".join(
                who
                for who, failed in (("Kafka", self.kafka_failed), ("Spark", self.spark_failed))
                if failed
            )
            head = f"NOT OK: {blame} failed ({self.sent} sent, {self.written} written)"
        lines = [head]
        if self.kafka_lost:
            lines.append(
                f"Kafka's failure: {_count(self.kafka_lost)} value(s) Kafka acknowledged are "
                f"gone from the topic, not by retention: {_shown(self.kafka_lost)}"
            )
        lines += [f"retention: {loss.words()}" for loss in self.retention_lost[:10]]
        if self.missing:
            lines.append(f"missing {self.missing_count} value(s): {_shown(self.missing)}")
        if self.duplicated:
            shown = ", ".join(f"{v}×{n}" for v, n in sorted(self.duplicated.items())[:10])
            lines.append(f"duplicated {len(self.duplicated)} value(s): {shown}")
        if self.not_sent:
            lines.append(f"written but never sent: {_shown(self.not_sent)}")
        lines += [f"count {b.kind}: {b}" for b in self.count_breaks[:5]]
        if self.spark_failed:
            lines.append(self._culprit_line())
        return lines

    def _culprit_line(self) -> str:
        if self.culprit is not None:
            return f"the output went wrong at value {self.wrong_from}, after {self.culprit.words()}"
        return f"the output went wrong at value {self.wrong_from}, with no fault during or after its send"

    def to_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "sent": self.sent,
            "written": self.written,
            "kafka_lost": [[r.first, r.last] for r in self.kafka_lost],
            "retention_lost": [loss.words() for loss in self.retention_lost],
            "missing": [[r.first, r.last] for r in self.missing],
            "duplicated": [{"value": v, "times": n} for v, n in sorted(self.duplicated.items())],
            "not_sent": [[r.first, r.last] for r in self.not_sent],
            "count_breaks": [str(b) for b in self.count_breaks],
            "wrong_from": self.wrong_from,
            "culprit": self.culprit.words() if self.culprit else None,
        }


def judge_nemesis(
    report: VerifyReport,
    acked: Sequence[Acked],
    held: Iterable[int],
    earliest_end: int,
    deletions: Sequence[KafkaDeletion],
    spans: Sequence[FaultSpan],
    *,
    short: bool,
) -> NemesisVerdict:
    """The output log's `report` held against the values Kafka `acked`, the values the topic
    still `held` from `earliest_end` on, retention's `deletions` (allowed losses only when the
    retention is `short`), and the faults' `spans` (to name the one the output went wrong after)."""
    by_value = {a.value: a for a in acked}
    held_values = set(held)
    sent = set(by_value) | held_values
    written = Counter(report.values)
    kafka_lost = {
        v for v, a in by_value.items() if a.offset >= earliest_end and v not in held_values
    }
    missing = {v for v in sent if not written[v]} - kafka_lost
    losses = _retention_losses(missing, by_value, deletions, spans) if short else []
    explained = {v for loss in losses for v in range(loss.values.first, loss.values.last + 1)}
    spark_missing = missing - explained
    duplicated = {v: n for v, n in sorted(written.items()) if n > 1}
    not_sent = {v for v in written if v not in sent}
    wrong = sorted(
        spark_missing | set(duplicated) | not_sent | {b.value for b in report.count_breaks}
    )
    wrong_from = wrong[0] if wrong else None
    return NemesisVerdict(
        sent=len(sent),
        written=report.messages,
        kafka_lost=ranges_of(kafka_lost),
        retention_lost=tuple(losses),
        missing=ranges_of(spark_missing),
        duplicated=duplicated,
        not_sent=ranges_of(not_sent),
        count_breaks=report.count_breaks,
        wrong_from=wrong_from,
        culprit=_culprit(wrong_from, by_value, spans),
    )


def _retention_losses(
    missing: set[int],
    by_value: Mapping[int, Acked],
    deletions: Sequence[KafkaDeletion],
    spans: Sequence[FaultSpan],
) -> list[RetentionLoss]:
    """The missing values retention deleted before they were read, a named range per run of
    consecutive values within one deletion."""
    by_offset = {a.offset: v for v, a in by_value.items() if v in missing}
    losses: list[RetentionLoss] = []
    for deletion in deletions:
        values = [by_offset[o] for o in deletion.unread() if o in by_offset]
        for values_range in ranges_of(values):
            offsets = (by_value[values_range.first].offset, by_value[values_range.last].offset)
            loss = RetentionLoss(values_range, offsets, deletion.at, _during(deletion.at, spans))
            joined = losses[-1].joined(loss) if losses else None
            if joined is not None:
                losses[-1] = joined
            else:
                losses.append(loss)
    return losses


def _during(at: float, spans: Sequence[FaultSpan]) -> str:
    """The fault active at `at`, or the latest before it: what kept the app from reading."""
    active = [s for s in spans if s.start <= at and (s.end is None or s.end >= at)]
    if active:
        return f"during {active[-1].short()}"
    before = [s for s in spans if s.start <= at]
    if before:
        return f"after {before[-1].short()}"
    return "with no fault before it: the app fell behind retention"


def _culprit(
    wrong_from: int | None, by_value: Mapping[int, Acked], spans: Sequence[FaultSpan]
) -> FaultSpan | None:
    """The first fault still active when `wrong_from` was sent, or applied after it."""
    if wrong_from is None or not spans:
        return None
    sent = by_value[wrong_from].wall if wrong_from in by_value else None
    if sent is None:
        return spans[0]
    return next((s for s in spans if s.end_wall is None or s.end_wall >= sent), None)


def _count(ranges: Sequence[ValueRange]) -> int:
    return sum(len(r) for r in ranges)


def _shown(ranges: Sequence[ValueRange]) -> str:
    more = " …" if len(ranges) > 10 else ""
    return ", ".join(str(r) for r in ranges[:10]) + more
