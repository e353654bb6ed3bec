"""The row-count exhibit end to end (`run known-bugs --exhibits SPARK-53069 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: two
Spark starts on RocksDB with changelog checkpointing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_53069 import total_rows
from spark_app.lines.known_bug_table import STATE_ROWS_KEPT, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-53069")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_state_rows_counted_across_a_restart_hold_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, _ = run_exhibit(tmp_path, BUG)
    rows = result["facts"][f"{BUG.ticket} state rows"]
    before = [
        total_rows(ops) for _, ops in sorted(rows["before"].items(), key=lambda kv: int(kv[0]))
    ]
    after = [total_rows(ops) for _, ops in sorted(rows["after"].items(), key=lambda kv: int(kv[0]))]
    # The first run's batches each reported the same rows: the query touches the same ones.
    assert before and len(set(before)) == 1
    assert after and (after[0] == before[-1]) == (seen["outcome"] == STATE_ROWS_KEPT)
