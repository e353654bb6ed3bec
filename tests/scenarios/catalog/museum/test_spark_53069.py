"""The row-count exhibit's pure parts, without Spark: the query module's processor on a
stand-in handle (the same state rows every batch), and the outcome the counts before the stop
and after the restart make, held against the table's lines."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from scenarios.catalog.museum.spark_53069 import BUG, QUERY, rows_outcome, total_rows
from spark_app.lines.known_bug_table import STATE_ROWS_KEPT, STATE_ROWS_OFF, judge
from spark_app.query.user_query import load_query


class FakeState:
    """A value, list or map state as the processor uses them, in one dict of rows."""

    def __init__(self, rows: dict[tuple[str, ...], Any], name: str) -> None:
        self.rows, self.name = rows, name

    def exists(self) -> bool:
        return (self.name,) in self.rows

    def get(self) -> Any:
        return self.rows[(self.name,)]

    def update(self, value: Any) -> None:
        self.rows[(self.name,)] = value

    def appendList(self, values: list[Any]) -> None:
        self.rows[(self.name,)] = [*self.rows.get((self.name,), []), *values]

    def updateValue(self, key: tuple[Any, ...], value: Any) -> None:
        self.rows[(self.name, *key)] = value


class FakeHandle:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, ...], Any] = {}
        self.timers: list[int] = []

    def registerTimer(self, due_ms: int) -> None:
        self.timers.append(due_ms)

    def listTimers(self) -> Iterator[int]:
        return iter(self.timers)

    def getValueState(self, name: str, schema: str) -> FakeState:
        return FakeState(self.rows, name)

    def getListState(self, name: str, schema: str) -> FakeState:
        return FakeState(self.rows, name)

    def getMapState(self, name: str, key_schema: str, value_schema: str) -> FakeState:
        return FakeState(self.rows, name)


class Now:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def getCurrentProcessingTimeInMs(self) -> int:
        return self.ms


def test_every_batch_touches_the_same_state_rows() -> None:
    processor = load_query(QUERY).module.ThreeKinds()
    handle = FakeHandle()
    processor.init(handle)
    seen = []
    for batch, values in enumerate(([1, 2, 3], [4], [5, 6])):
        now = Now(1_000 * batch)
        (out,) = list(processor.handleInputRows(("all",), iter([pd.DataFrame({"n": values})]), now))
        seen.append((int(out["count"].iloc[0]), len(handle.rows), int(out["timers"].iloc[0])))
    # The running count; one value row, one list row, three map rows after every batch; a
    # timer more each batch, each an hour after its batch.
    assert seen == [(3, 5, 1), (4, 5, 2), (6, 5, 3)]
    assert handle.timers == [3_600_000, 3_601_000, 3_602_000]
    assert handle.rows[("values",)] == [(n,) for n in range(1, 7)]


def ops(total: int) -> list[dict[str, Any]]:
    return [{"operatorName": "transformWithStateInPandasExec", "numRowsTotal": total}]


def test_the_restarts_first_count_is_held_to_the_last_before_the_stop() -> None:
    before = {0: ops(5), 1: ops(5)}
    assert total_rows(ops(5) + ops(2)) == 7
    assert rows_outcome(before, {2: ops(5), 3: ops(5)}) == STATE_ROWS_KEPT
    assert rows_outcome(before, {2: ops(9), 3: ops(5)}) == STATE_ROWS_OFF
    assert rows_outcome(before, {}) == "no state rows logged after the restart"
    assert rows_outcome({}, {2: ops(5)}) == "no state rows logged before the stop"


def test_each_outcome_is_held_to_its_line() -> None:
    assert judge(BUG, "4.0.0", STATE_ROWS_OFF).held
    assert judge(BUG, "4.1.1", STATE_ROWS_KEPT).held
    assert not judge(BUG, "4.2.0", STATE_ROWS_OFF).held
