"""The running count on transformWithStateInPandas (`--counter transform-with-state`).

The same count as counter.py, with the successor of applyInPandasWithState: a
`StatefulProcessor` keeps the count in one value state variable, `count`, and numbers each
batch's rows exactly as `running_count` does, so the output log is the same line for line and
a replayed batch gets the same counts.

What changes is the checkpoint. Spark stores every state variable as a column family of one
RocksDB store (it refuses the HDFS store for this operator), writes operator metadata v2 per
batch (`state/<op>/_metadata/v2/<batch>`) and the variables' schemas under
`state/<op>/_stateSchema/`. The State Data Source reads the count with
`option("stateVarName", "count")`. A checkpoint written by one counter cannot be restarted by
the other: Spark compares the stateful operator with the one in the checkpoint.

PySpark 4.0 has it (`GroupedData.transformWithStateInPandas`); its Python workers talk to
Spark's state server in protobuf, hence the project's protobuf dependency.

`--initial-state-from` seeds a new checkpoint's count (handleInitialState, initial_state.py):
the move from applyInPandasWithState, whose state Spark cannot carry over, to this counter.

`--state-ttl-sec` and `--idle-timer-sec` run the operator in ProcessingTime mode (pinned in
the checkpoint's operator metadata), where Spark runs a batch every trigger even without new
messages, so timers fire and expired state is evicted while Kafka is quiet. The first adds a
value state `last_seen` with a TTL (the count keeps none: the output log stays verifiable);
the second a timer per key, re-armed by every batch with messages. What they report goes to
the output log as event lines (state_events.py).

Usage: `counted = count_messages_tws(records, state_schema="v1")`  # adds `count`: 1, 2, ...
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql.group import GroupedData
from pyspark.sql.streaming.stateful_processor import (
    ExpiredTimerInfo,
    StatefulProcessor,
    StatefulProcessorHandle,
    TimerValues,
)

from spark_app.checkpoint.state_schema import STATE_SCHEMAS
from spark_app.lines.state_events import (
    IDLE_TIMER,
    LAST_SEEN_SCHEMA,
    LAST_SEEN_VARIABLE,
    TTL_EXPIRED,
    Event,
    event_frame,
)
from spark_app.query.counter import (
    GROUP_COLUMN,
    OUTPUT_SCHEMA,
    message_texts,
    number_rows,
    state_value,
)

__all__ = [
    "RunningCountProcessor",
    "count_messages_tws",
    "idle_delay_ms",
    "time_mode",
    "STATE_VARIABLE",
]

# The value state's name: the State Data Source needs it (`stateVarName`) to read the count.
STATE_VARIABLE = "count"


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else max(1, round(seconds * 1000))


def idle_delay_ms(seconds: float | None) -> int | None:
    """The idle timer's delay in ms: a positive one at least 1 ms, as a TTL; 0 and below kept
    as given (a timer at, or before, the batch's own processing time)."""
    if seconds is None or seconds > 0:
        return _ms(seconds)
    return round(seconds * 1000)


class RunningCountProcessor(StatefulProcessor):
    """Numbers each batch's rows after the stored count, then stores the new total; with a
    TTL or an idle timer, also reports when the key was idle (state_events.py)."""

    def __init__(
        self,
        state_schema: str = "v1",
        ttl_sec: float | None = None,
        idle_timer_sec: float | None = None,
    ) -> None:
        self.version = state_schema
        self.ttl_ms = _ms(ttl_sec)
        self.idle_ms = idle_delay_ms(idle_timer_sec)

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.count = handle.getValueState(STATE_VARIABLE, STATE_SCHEMAS[self.version])
        # Only the last-seen time expires: a count that expired would restart at 1.
        self.last_seen = (
            None
            if self.ttl_ms is None
            else handle.getValueState(LAST_SEEN_VARIABLE, LAST_SEEN_SCHEMA, self.ttl_ms)
        )

    def _stored_count(self) -> int:
        stored = self.count.get() if self.count.exists() else None
        return int(stored[0]) if stored and stored[0] is not None else 0

    def handleInputRows(
        self, key: Any, rows: Iterator[pd.DataFrame], timerValues: TimerValues
    ) -> Iterator[pd.DataFrame]:
        before = self._stored_count()
        numbered = number_rows(rows, before)
        if numbered is None:
            return
        # The batch's processing time: the same on a replay of the batch (offsets/N keeps it).
        now = timerValues.getCurrentProcessingTimeInMs()
        if self.last_seen is not None:
            if before and not self.last_seen.exists():
                yield event_frame(
                    Event(TTL_EXPIRED, before, {"ttl_ms": self.ttl_ms or 0, "batch_ms": now})
                )
            self.last_seen.update((now,))
        if self.idle_ms is not None:
            self._rearm(now)
        self.count.update(
            state_value(before + len(numbered), self.version, int(time.time() * 1000))
        )
        yield numbered

    def _rearm(self, now_ms: int) -> None:
        """One idle timer per key, due `idle_ms` after the last batch with messages. A timer
        already due is left to fire: after a restart Spark runs no batch until new messages
        come (it has no last execution to ask for an idle one), and then handles this batch's
        rows before its expired timers, so a timer due while the app was down fires here.
        With `idle_ms` 0 or below the new timer is due already (at or before `now_ms`): it
        fires after this batch's rows, or in the next batch."""
        for registered in list(self.handle.listTimers()):
            if registered > now_ms:
                self.handle.deleteTimer(registered)
        self.handle.registerTimer(now_ms + (self.idle_ms or 0))

    def handleExpiredTimer(
        self, key: Any, timerValues: TimerValues, expiredTimerInfo: ExpiredTimerInfo
    ) -> Iterator[pd.DataFrame]:
        """The key was idle for `idle_ms` (0 or less: the timer was due when it was armed):
        say so once; the next message arms a new timer."""
        yield event_frame(
            Event(
                IDLE_TIMER,
                self._stored_count(),
                {
                    "idle_ms": self.idle_ms or 0,
                    "due_ms": expiredTimerInfo.getExpiryTimeInMs(),
                    "batch_ms": timerValues.getCurrentProcessingTimeInMs(),
                },
            )
        )

    def handleInitialState(
        self, key: Any, initialState: pd.DataFrame, timerValues: TimerValues
    ) -> None:
        """Batch 0 of a seeded checkpoint (`--initial-state-from`): the count the old
        checkpoint held becomes this one's, before the batch's rows are numbered."""
        seeded = int(initialState["count"].iloc[-1])
        self.count.update(state_value(seeded, self.version, int(time.time() * 1000)))
        if self.last_seen is not None:  # seeded is not idle: no ttl-expired event next
            self.last_seen.update((timerValues.getCurrentProcessingTimeInMs(),))

    def close(self) -> None:
        pass


def time_mode(ttl_sec: float | None, idle_timer_sec: float | None) -> str:
    """TTL and processing-time timers need ProcessingTime; the plain count runs without time."""
    return "ProcessingTime" if ttl_sec is not None or idle_timer_sec is not None else "None"


def count_messages_tws(
    records: DataFrame,
    state_schema: str = "v1",
    initial_state: GroupedData | None = None,
    ttl_sec: float | None = None,
    idle_timer_sec: float | None = None,
) -> DataFrame:
    """The records with their running count, as an update-mode transformWithState stream;
    `initial_state` (initial_state.py) seeds the count in a new checkpoint's batch 0."""
    processor = RunningCountProcessor(state_schema, ttl_sec, idle_timer_sec)
    return (
        message_texts(records)
        .groupBy(GROUP_COLUMN)
        .transformWithStateInPandas(
            processor,
            OUTPUT_SCHEMA,
            "Update",
            time_mode(ttl_sec, idle_timer_sec),
            initialState=initial_state,
        )
    )
