"""The foreachBatch function: each batch's rows, in count order, through the exactly-once sink
into the output log, with the negative key's crash and transformWithState's event lines.

Spark calls it once per batch with the batch's DataFrame and id; a replayed batch comes again
with the same id and rows, and the sink (sink.py) makes sure its lines are written once. A stop
closes its gate (graceful_stop.py): a batch that begins after it writes nothing.

Usage:
    handler = BatchHandler.in_session(settings, jvm_pid(spark))
    counted.writeStream.foreachBatch(handler)...
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from spark_app.checkpoint.reader import read_query_id
from spark_app.lines.output_line import OutputRow, format_event_line, format_lines
from spark_app.lines.state_events import IDLE_TIMER, Event, describe, events_in, is_event
from spark_app.query.connector_group import BatchStartCommitter
from spark_app.query.graceful_stop import Gate, OutputGate
from spark_app.query.negative_key import NegativeKeyPolicy
from spark_app.query.sink import open_sink
from spark_app.runtime.checkpoint_store import remote_query_id
from spark_app.settings import SparkAppSettings

__all__ = ["BatchHandler"]

# How many batches' counts are kept for the listener, which is at most a few batches behind.
_COUNTS_KEPT = 64


class BatchHandler:
    """The foreachBatch function: order rows by count, apply the negative-key policy, write."""

    def __init__(
        self, settings: SparkAppSettings, policy: NegativeKeyPolicy, gate: Gate | None = None
    ) -> None:
        self.settings = settings
        self.policy = policy
        self.sink = open_sink(
            settings.sink,
            settings.output_file,
            lambda: (
                read_query_id(settings.checkpoint.folder)
                if settings.checkpoint.is_local
                else remote_query_id(settings.checkpoint.location)
            ),
        )
        # The running count after each recent batch, by batch id: the progress listener prints a
        # batch's line after the batch, when the next one may have run (progress.py).
        self._counts: dict[int, int] = {}
        # Closed by a stop: a batch that begins after it writes nothing (graceful_stop.py); under
        # --connect a FileGate the app shares with the server's Python process.
        self.gate: Gate = OutputGate() if gate is None else gate
        # Code inside foreachBatch: free to change between restarts of the same checkpoint.
        self.output_format = settings.output_format
        # The connector commits nothing to Kafka: with --offsets-from-group the handler does.
        self.commit_start = (
            BatchStartCommitter(settings)
            if settings.offsets_from_group and settings.source == "spark-kafka"
            else None
        )

    @classmethod
    def in_session(
        cls,
        settings: SparkAppSettings,
        jvm_pid: int,
        gate: Gate | None = None,
        app_pid: int | None = None,
    ) -> BatchHandler:
        """The handler of a running session: a negative key crashes that JVM (negative_key.py);
        run in another process than the app's (`app_pid`, --connect), it signals the app."""
        policy = NegativeKeyPolicy(settings.on_negative_key, settings.log_dir, jvm_pid, app_pid)
        return cls(settings, policy, gate)

    def close(self) -> None:
        if self.commit_start is not None:
            self.commit_start.close()

    def __call__(self, batch: Any, batch_id: int) -> None:
        self.gate.enter(batch_id)
        if self.commit_start is not None:
            self.commit_start(batch_id)
        with warnings.catch_warnings():
            # On failure (e.g. interrupted by a stop) pyspark warns with the whole Java trace
            # before raising the same error, which reaches the CLI's one line anyway.
            warnings.simplefilter("ignore", UserWarning)
            frame = batch.toPandas()
        if frame.empty:
            return
        # transformWithState's timers and TTL add event rows (no offset) to the messages.
        events = events_in(frame)
        frame = frame[~is_event(frame)].sort_values("count")
        rows = [
            OutputRow(t, k, v, int(c), int(p), int(o))
            for t, k, v, c, p, o in zip(
                frame["topic"],
                frame["key"],
                frame["value"],
                frame["count"],
                frame["partition"],
                frame["offset"],
            )
        ]
        self.write(batch_id, rows, events)

    def write(self, batch_id: int, rows: list[OutputRow], events: Sequence[Event] = ()) -> None:
        victim = self.policy.first_to_crash_on(rows)
        with self.sink.batch(batch_id) as out:
            if out is not None:
                # In Spark's order: a TTL found expired as the rows are handled, before them;
                # a timer fires after the batch's rows.
                self._write_events(batch_id, out, [e for e in events if e.kind != IDLE_TIMER])
                if victim is not None:
                    # Die mid-batch, as a real failure would (see negative_key.py).
                    out.write(format_lines(rows[:victim], datetime.now(), self.output_format))
                    out.flush()
                    self.policy.crash(rows[victim])
                out.write(format_lines(rows, datetime.now(), self.output_format))
                self._write_events(batch_id, out, [e for e in events if e.kind == IDLE_TIMER])
        if rows:
            self._counts[batch_id] = rows[-1].count
            for old_id in sorted(self._counts)[:-_COUNTS_KEPT]:
                del self._counts[old_id]

    def count_of(self, batch_id: int) -> int | None:
        """The running count after batch `batch_id`'s rows; None if it had none (or is long gone)."""
        return self._counts.get(batch_id)

    @staticmethod
    def _write_events(batch_id: int, out: Any, events: Sequence[Event]) -> None:
        """Event lines in the output log, each echoed on the console."""
        now = datetime.now()
        for event in events:
            line = format_event_line(event.kind, event.count, describe(event), now)
            out.write(line)
            print(
                f"batch {batch_id}: {line.split('[StreamingOutput]: ', 1)[1]}", end="", flush=True
            )
