"""The app's console line per batch, the one contract between the app's stdout and the
scenarios that read it: what was read, how many rows, the count, how long it took, and how far
the query is behind Kafka's latest offsets (the connector's lag metrics).

No pyspark here: the scenarios read these lines without importing Spark.

Usage: `batch_line_from_progress(progress_json, count=42).plain()`; `lag_in_output(stdout)`
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from spark_app.offsets import Offsets, parse_offsets

__all__ = ["BatchLine", "batch_line_from_progress", "durations_in_output", "lag_in_output"]


@dataclass(frozen=True)
class BatchLine:
    """The per-batch facts shown on the console."""

    batch_id: int
    start: Offsets
    end: Offsets
    rows: int
    count: int | None
    duration_ms: int
    latest: Offsets = field(default_factory=dict)

    def behind_latest(self) -> dict[str, str]:
        """KafkaMicroBatchStream.metrics: how far each partition's end is behind Kafka's latest
        offset, under the connector's names and formats. Spark's progress has no metrics for a
        Python source, so we compute them from its endOffset and latestOffset."""
        behind = [self.latest[tp] - self.end[tp] for tp in self.latest if tp in self.end]
        if not behind:
            return {}
        return {"minOffsetsBehindLatest": str(min(behind)),
                "maxOffsetsBehindLatest": str(max(behind)),
                "avgOffsetsBehindLatest": str(float(sum(behind) / len(behind)))}

    def _lag(self) -> str:
        metrics = self.behind_latest()
        if not metrics:
            return ""
        return (f" behind latest: max={metrics['maxOffsetsBehindLatest']} "
                f"avg={metrics['avgOffsetsBehindLatest']} min={metrics['minOffsetsBehindLatest']}")

    def offset_range(self) -> str:
        parts = [f"{tp} [{self.start.get(tp, 'start')}, {self.end[tp]})" for tp in sorted(self.end)]
        return ", ".join(parts) or "-"

    def plain(self) -> str:
        count = "?" if self.count is None else str(self.count)
        return (f"batch {self.batch_id}: {self.offset_range()} rows={self.rows} count={count} "
                f"took {self.duration_ms} ms{self._lag()}")

    def rich(self) -> str:
        count = "?" if self.count is None else str(self.count)
        return (f"[bold cyan]batch {self.batch_id}[/]: {self.offset_range()} "
                f"rows=[bold]{self.rows}[/] count=[bold green]{count}[/] "
                f"[dim]took {self.duration_ms} ms{self._lag()}[/]")


_LAG = re.compile(r"^batch (\d+): .* behind latest: max=(\d+) ", re.MULTILINE)


_TOOK = re.compile(r"^batch (\d+): .* took (\d+) ms", re.MULTILINE)


def durations_in_output(text: str) -> dict[int, int]:
    """Each batch's duration in ms (Spark's triggerExecution) from the app's console lines."""
    return {int(batch): int(took) for batch, took in _TOOK.findall(text)}


def lag_in_output(text: str) -> dict[int, int]:
    """Each batch's maxOffsetsBehindLatest from the app's console lines (scenario reports)."""
    return {int(batch): int(behind) for batch, behind in _LAG.findall(text)}


def _offsets(text: Any) -> Offsets:
    if not text:
        return {}
    try:
        return parse_offsets(json.loads(text) if isinstance(text, str) else text)
    except ValueError:
        return {}


def batch_line_from_progress(progress: Any, count: int | None) -> BatchLine:
    """Build the line from a StreamingQueryProgress (or its JSON dict, in tests)."""
    data = json.loads(progress.json) if hasattr(progress, "json") else progress
    source = (data.get("sources") or [{}])[0]
    return BatchLine(batch_id=int(data.get("batchId", -1)), start=_offsets(source.get("startOffset")),
                     end=_offsets(source.get("endOffset")), rows=int(data.get("numInputRows", 0)),
                     count=count, duration_ms=int((data.get("durationMs") or {}).get("triggerExecution", 0)),
                     latest=_offsets(source.get("latestOffset")))
