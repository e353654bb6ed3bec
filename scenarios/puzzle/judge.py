"""The puzzle's verdict: does the repaired job continue exactly once, and if it was reset, what
was lost?

Pure: it reads the output log's history (the run before the fault, and what the repaired job
wrote after it, scenarios/exercises/history.py), the query id before and after, and the fault's
allowances: values no repair brings back (retention's), and a new stream whose count starts
over by design (a recreated topic). Its lines say what happened, never which repair to make.

Usage: `verdict = judge_repair(report, fault, facts, query_id_now)`
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scenarios.checker.verify import ValueRange, VerifyReport, ranges_of
from scenarios.exercises.exercise import Verdict
from scenarios.puzzle.fault import Fault

__all__ = ["judge_repair"]


def _values(ranges: tuple[ValueRange, ...]) -> set[int]:
    return {v for r in ranges for v in range(r.first, r.last + 1)}


def _shown(ranges: tuple[ValueRange, ...]) -> str:
    return ", ".join(str(r) for r in ranges[:6]) + (" …" if len(ranges) > 6 else "")


def judge_repair(
    report: VerifyReport, fault: Fault, facts: Mapping[str, Any], query_id_now: str | None
) -> Verdict:
    """The repaired job's output history, judged against what the fault allows."""
    expected_lost = fault.unavoidable(facts)
    lost = ranges_of(
        _values(tuple(r for r in report.missing if r.first > 0)) - _values(expected_lost)
    )
    resets = [b for b in report.count_breaks if b.kind == "reset"]
    new_query = query_id_now != facts["query_id"]
    fresh_start = fault.new_stream and [b.value for b in resets] == [facts["first_new"]]
    lines = [f"the repaired job wrote values up to {report.highest}"]
    failed = False
    if resets and not fresh_start:
        failed = True
        lines.append(
            f"a reset: a new query, whose count started over at 1 at value {resets[0].value}; "
            f"the count of the {resets[0].expected - 1} messages before it is lost"
        )
    elif new_query and not resets:
        lines.append(
            "the checkpoint's metadata names another query id than the one that wrote the "
            "output before: a sink keyed on the query id takes its batches for new ones"
        )
    if report.duplicated:
        failed = True
        doubled = ranges_of(report.duplicated)
        lines.append(f"counted twice: values {_shown(doubled)}")
    if lost:
        failed = True
        lines.append(f"never counted: values {_shown(lost)}")
    other = [b for b in report.count_breaks if b.kind != "reset"] + list(report.unpaired)
    if other:
        failed = True
        lines.append(f"the count is out of step with the messages at {len(other)} place(s)")
    if failed:
        return Verdict.not_yet(*lines)
    if fresh_start:
        lines.append(
            f"a new checkpoint for the new stream: every one of its values once from its first, "
            f"value {facts['first_new']}, where the count starts over, as a new stream's must"
        )
    else:
        lines.append(
            "it continues exactly once: every value once, the count going on from the checkpoint's"
        )
    if expected_lost:
        lines.append(
            f"lost before the repair, and by no repair brought back: values "
            f"{_shown(expected_lost)}; backfill them from the source of record"
        )
    return Verdict.passed(*lines)
