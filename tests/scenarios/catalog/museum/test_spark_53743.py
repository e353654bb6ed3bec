"""The list-state exhibit's pure parts, without Spark: the query module's processor on a
stand-in handle, the outcome of a run that failed and of one that read the list back, each
held against the table's lines."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from scenarios.catalog.museum.spark_53743 import (
    BUG,
    ELEMENTS,
    QUERY,
    failure_outcome,
    read_back_outcome,
    rows_after,
)
from spark_app.lines.known_bug_table import LIST_PUT_FAILED, LIST_READ_BACK, judge
from spark_app.lines.query_rows import batch_file
from spark_app.query.user_query import load_query


class FakeList:
    """A list state as the processor uses it; `nan` reads nulls back as 4.0's Arrow does."""

    def __init__(self, nan: bool = False) -> None:
        self.items: list[tuple[Any, ...]] = []
        self.nan = nan

    def exists(self) -> bool:
        return bool(self.items)

    def get(self) -> Iterator[tuple[Any, ...]]:
        return iter([(v, math.nan if n is None and self.nan else n) for v, n in self.items])

    def put(self, items: list[tuple[Any, ...]]) -> None:
        self.items = list(items)


class FakeHandle:
    def __init__(self, state: FakeList) -> None:
        self.state = state

    def getListState(self, name: str, schema: Any) -> FakeList:
        assert name == "items" and [f.nullable for f in schema.fields] == [True, True]
        return self.state


def batch(processor: Any, *values: int) -> dict[str, Any]:
    frames = iter([pd.DataFrame({"n": list(values)})])
    (out,) = list(processor.handleInputRows(("all",), frames, None))
    return out.iloc[0].to_dict()


def test_the_query_puts_the_pairs_and_reads_them_back_the_next_batch() -> None:
    module = load_query(QUERY).module
    for nan in (False, True):
        state = FakeList(nan=nan)
        processor = module.ListOfNulls()
        processor.init(FakeHandle(state))
        first = batch(processor, 1, 2, 3)
        assert (first["highest"], first["read_back"], first["nulls_read"]) == (3, 0, 0)
        assert state.items == [(i, None) for i in range(ELEMENTS)]
        second = batch(processor, 4)
        assert (second["read_back"], second["nulls_read"]) == (ELEMENTS, ELEMENTS)


def test_pandas_cast_of_a_none_in_the_words_of_a_failed_run_is_the_bugs_outcome() -> None:
    log = (
        "[WARN] TaskSetManager: Lost task 0.0: org.apache.spark.api.python.PythonException: "
        "TypeError: int() argument must be a string, a bytes-like object or a real number, "
        "not 'NoneType'"
    )
    assert failure_outcome("STREAM_FAILED: Query terminated", log, 1) == LIST_PUT_FAILED
    assert (
        failure_outcome("[STATE_STORE_UNSUPPORTED_OPERATION] nope", "", 1)
        == "STATE_STORE_UNSUPPORTED_OPERATION"
    )
    assert failure_outcome("stopped", "", 3) == "exit code 3, no error class"


def test_the_restarts_first_row_says_what_the_list_held(tmp_path: Path) -> None:
    for n, read_back in ((0, 0), (1, ELEMENTS), (2, ELEMENTS), (3, ELEMENTS)):
        row = {"batch_id": n, "group": "all", "read_back": read_back, "nulls_read": read_back}
        batch_file(tmp_path, n).write_text(json.dumps(row) + "\n")  # as the sink names it
    rows = rows_after(tmp_path, 1)
    assert [r["batch_id"] for r in rows] == [2, 3]
    assert read_back_outcome(rows) == LIST_READ_BACK
    assert read_back_outcome([{**rows[0], "nulls_read": 0}]) == (
        f"the restart's batch read back {ELEMENTS} elements, 0 with valueNull null"
    )
    assert read_back_outcome([]) == "no output row after the restart"


def test_each_outcome_is_held_to_its_line() -> None:
    assert judge(BUG, "4.0.0", LIST_PUT_FAILED).held
    assert not judge(BUG, "4.0.0", LIST_READ_BACK).held
    assert judge(BUG, "4.2.0", LIST_READ_BACK).held
    assert not judge(BUG, "4.1.1", "no output row after the restart").held
