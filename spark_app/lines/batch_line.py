"""The app's console line per batch, the one contract between the app's stdout and the
scenarios that read it: what was read, how many rows, the count, how long it took, and how far
the query is behind Kafka's latest offsets (the connector's lag metrics).

The app formats the line with `BatchLine.plain()` (or `rich()`, the same text in colour); the
scenarios and the demo read it back with `parse_batch_line`, so a change to its shape is made
here once. No pyspark here: the scenarios read these lines without importing Spark.

Usage: `batch_line_from_progress(progress_json, count=42).plain()`; `parse_batch_lines(stdout)`
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from spark_app.offsets import Offsets, TopicPartition, parse_offsets

__all__ = [
    "BatchLine",
    "Lag",
    "batch_line_from_progress",
    "durations_in_output",
    "lag_in_output",
    "late_in_output",
    "parse_batch_line",
    "parse_batch_lines",
]


class Lag(NamedTuple):
    """How far a batch's end is behind Kafka's latest offsets, over its partitions."""

    max: int
    avg: float
    min: int

    @classmethod
    def between(cls, end: Offsets, latest: Offsets) -> Lag | None:
        """KafkaMicroBatchStream.metrics: each partition's end against Kafka's latest offset.
        Spark's progress has no metrics for a Python source, so we compute them from its
        endOffset and latestOffset."""
        behind = [latest[tp] - end[tp] for tp in latest if tp in end]
        if not behind:
            return None
        return cls(max(behind), float(sum(behind) / len(behind)), min(behind))


@dataclass(frozen=True)
class BatchLine:
    """The per-batch facts shown on the console."""

    batch_id: int
    start: Offsets
    end: Offsets
    rows: int
    count: int | None
    duration_ms: int
    lag: Lag | None = None
    # Records the batch's stateful operators dropped as later than the watermark (Spark's
    # numRowsDroppedByWatermark, summed); shown only when some were.
    late: int = 0

    def behind_latest(self) -> dict[str, str]:
        """The lag under the connector's metric names and formats."""
        if self.lag is None:
            return {}
        return {
            "minOffsetsBehindLatest": str(self.lag.min),
            "maxOffsetsBehindLatest": str(self.lag.max),
            "avgOffsetsBehindLatest": str(self.lag.avg),
        }

    def _lag(self) -> str:
        lag = self.lag
        return "" if lag is None else f" behind latest: max={lag.max} avg={lag.avg} min={lag.min}"

    def offset_range(self) -> str:
        parts = [f"{tp} [{self.start.get(tp, 'start')}, {self.end[tp]})" for tp in sorted(self.end)]
        return ", ".join(parts) or "-"

    def _late(self) -> str:
        return f" late={self.late}" if self.late else ""

    def plain(self) -> str:
        count = "?" if self.count is None else str(self.count)
        return (
            f"batch {self.batch_id}: {self.offset_range()} rows={self.rows} count={count}"
            f"{self._late()} took {self.duration_ms} ms{self._lag()}"
        )

    def rich(self) -> str:
        count = "?" if self.count is None else str(self.count)
        return (
            f"[bold cyan]batch {self.batch_id}[/]: {self.offset_range()} "
            f"rows=[bold]{self.rows}[/] count=[bold green]{count}[/]{self._late()} "
            f"[dim]took {self.duration_ms} ms{self._lag()}[/]"
        )


# `plain()` read back: the offset ranges, then the counts, then the optional lag. A new query's
# first batch has no start offset in Spark's progress: the line shows a word instead.
_LINE = re.compile(
    r"batch (?P<batch>\d+): (?P<ranges>.*) rows=(?P<rows>\d+) count=(?P<count>-?\d+|\?)"
    r"(?: late=(?P<late>\d+))? took (?P<took>\d+) ms(?: behind latest: max=(?P<max>-?\d+) "
    r"avg=(?P<avg>-?[\d.]+(?:e-?\d+)?) min=(?P<min>-?\d+))?"
)
_RANGE = re.compile(
    r"(?P<topic>\S+)-(?P<partition>\d+) \[(?P<start>\d+|[A-Za-z?]+), (?P<end>\d+)\)"
)


def parse_batch_line(text: str) -> BatchLine | None:
    """`BatchLine.plain()`'s text read back; None for any other line."""
    match = _LINE.fullmatch(text.strip())
    if match is None:
        return None
    start: Offsets = {}
    end: Offsets = {}
    for found in _RANGE.finditer(match["ranges"]):
        tp = TopicPartition(found["topic"], int(found["partition"]))
        end[tp] = int(found["end"])
        if found["start"].isdigit():
            start[tp] = int(found["start"])
    lag = (
        None
        if match["max"] is None
        else Lag(int(match["max"]), float(match["avg"]), int(match["min"]))
    )
    count = None if match["count"] == "?" else int(match["count"])
    late = int(match["late"]) if match["late"] else 0
    return BatchLine(
        int(match["batch"]), start, end, int(match["rows"]), count, int(match["took"]), lag, late
    )


def parse_batch_lines(text: str) -> list[BatchLine]:
    """Every batch line in the app's console output, in order."""
    lines = (parse_batch_line(line) for line in text.splitlines())
    return [line for line in lines if line is not None]


def durations_in_output(text: str) -> dict[int, int]:
    """Each batch's duration in ms (Spark's triggerExecution) from the app's console lines."""
    return {line.batch_id: line.duration_ms for line in parse_batch_lines(text)}


def late_in_output(text: str) -> int:
    """How many records the batches in the app's console output dropped as late, in all."""
    return sum(line.late for line in parse_batch_lines(text))


def lag_in_output(text: str) -> dict[int, int]:
    """Each batch's maxOffsetsBehindLatest from the app's console lines (scenario reports)."""
    return {line.batch_id: line.lag.max for line in parse_batch_lines(text) if line.lag is not None}


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
    end = _offsets(source.get("endOffset"))
    return BatchLine(
        batch_id=int(data.get("batchId", -1)),
        start=_offsets(source.get("startOffset")),
        end=end,
        rows=int(data.get("numInputRows", 0)),
        count=count,
        duration_ms=int((data.get("durationMs") or {}).get("triggerExecution", 0)),
        lag=Lag.between(end, _offsets(source.get("latestOffset"))),
        late=sum(
            int(op.get("numRowsDroppedByWatermark") or 0) for op in data.get("stateOperators") or []
        ),
    )
