"""One console line per batch: what was read, how many rows, the count, how long it took, and
how far the query is behind Kafka's latest offsets (the connector's lag metrics).

A StreamingQueryListener receives Spark's progress report after every batch; `BatchLine` keeps
the parts a user watches and renders them plainly (when piped, for logs and scenarios) or with
rich colours on a terminal.

Usage:
    listener = ProgressPrinter(console_sink(), count=lambda: counter.last)
    spark.streams.addListener(listener)
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql.streaming.listener import StreamingQueryListener

from spark_app.offsets import Offsets, parse_offsets

_log = logging.getLogger("spark_app.progress")

__all__ = ["BatchLine", "ProgressPrinter", "batch_line_from_progress", "console_writer"]


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


def console_writer() -> Callable[[BatchLine], None]:
    """rich on a terminal, plain lines otherwise (pipes, files, scenarios)."""
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(highlight=False)
        return lambda line: console.print(line.rich())
    return lambda line: print(line.plain(), flush=True)


class ProgressPrinter(StreamingQueryListener):
    """Prints a BatchLine for every batch that read data."""

    def __init__(self, write: Callable[[BatchLine], None], count: Callable[[], int | None]) -> None:
        self._write = write
        self._count = count

    def onQueryStarted(self, event: Any) -> None:
        return None

    def onQueryProgress(self, event: Any) -> None:
        line = batch_line_from_progress(event.progress, self._count())
        if line.rows:  # idle heartbeats every few seconds would drown the batches
            self._write(line)
            # Where the batch's time went (planning, reading, state, sink, checkpoint writes).
            durations = json.loads(event.progress.json).get("durationMs", {})
            _log.info("batch %d durations (ms): %s", line.batch_id, json.dumps(durations))
            if line.behind_latest():
                _log.info("batch %d source metrics: %s", line.batch_id, json.dumps(line.behind_latest()))

    def onQueryIdle(self, event: Any) -> None:
        return None

    def onQueryTerminated(self, event: Any) -> None:
        return None
