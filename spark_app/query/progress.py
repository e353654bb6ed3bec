"""The listener that prints the batch line: Spark hands it each batch's progress report, it
prints that batch's line on the app's console and logs where the batch's time went and how
many rows each stateful operator's state holds (lines/state_rows.py).

A StreamingQueryListener receives Spark's progress report after every batch; `BatchLine`
(batch_line.py, which owns the line's text) keeps the parts a user watches, and
`console_writer()` renders them plainly (when piped, for logs and scenarios) or with rich
colours on a terminal. Batches that read nothing are not printed.

Spark delivers a batch's progress report on its listener bus, after the batch ended: by then the
next batch may have run. The line's count is therefore the one the handler recorded for the
report's batch id, never "the last count" (which once printed batch 13's line with batch 14's
count).

Usage:
    listener = ProgressPrinter(console_writer(), count=handler.count_of)
    spark.streams.addListener(listener)
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyspark.sql.streaming.listener import StreamingQueryListener

from spark_app.lines.batch_line import BatchLine, batch_line_from_progress
from spark_app.lines.state_rows import state_rows_line

_log = logging.getLogger("spark_app.query.progress")

__all__ = ["ProgressPrinter", "console_writer"]


def console_writer() -> Callable[[BatchLine], None]:
    """rich on a terminal, plain lines otherwise (pipes, files, scenarios)."""
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(highlight=False)
        return lambda line: console.print(line.rich())
    return lambda line: print(line.plain(), flush=True)


class ProgressPrinter(StreamingQueryListener):
    """Prints a BatchLine for every batch that read data.

    `ended` is set once Spark reported the query's end. Spark delivers a query's events in order,
    so by then every batch's line is printed: the app waits for it to print its stop line last.
    """

    def __init__(
        self, write: Callable[[BatchLine], None], count: Callable[[int], int | None]
    ) -> None:
        """`count(batch_id)`: the running count after that batch's rows, None when it has none."""
        self._write = write
        self._count = count
        self.ended = threading.Event()

    def onQueryStarted(self, event: Any) -> None:
        self.ended.clear()

    def onQueryProgress(self, event: Any) -> None:
        line = batch_line_from_progress(event.progress, None)
        line = replace(line, count=self._count(line.batch_id))
        if line.rows:  # idle heartbeats every few seconds would drown the batches
            self._write(line)
            # Where the batch's time went (planning, reading, state, sink, checkpoint writes).
            report = json.loads(event.progress.json)
            durations = report.get("durationMs", {})
            _log.info("batch %d durations (ms): %s", line.batch_id, json.dumps(durations))
            # How many rows the state holds after the batch, per stateful operator.
            rows = state_rows_line(line.batch_id, report)
            if rows is not None:
                _log.info("%s", rows)
            if line.behind_latest():
                _log.info(
                    "batch %d source metrics: %s", line.batch_id, json.dumps(line.behind_latest())
                )

    def onQueryIdle(self, event: Any) -> None:
        return None

    def onQueryTerminated(self, event: Any) -> None:
        self.ended.set()
