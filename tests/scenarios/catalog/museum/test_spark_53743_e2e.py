"""The list-state exhibit end to end (`run known-bugs --exhibits SPARK-53743 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: one
Spark start where the bug is present, two where it is fixed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_53743 import ELEMENTS
from spark_app.lines.known_bug_table import LIST_READ_BACK, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-53743")


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_list_of_pairs_with_none_put_and_read_back_holds_the_lines_outcome(
    tmp_path: Path,
) -> None:
    result, seen, _ = run_exhibit(tmp_path, BUG)
    if seen["outcome"] != LIST_READ_BACK:
        # The bug: the first run's first batch failed, so there was no restart to read.
        assert seen["query_id_before"] is None
        return
    # The fix: batch 0 found the list empty; every batch after it, before the stop and after
    # the restart, read the 100 pairs back with every None kept.
    rows = result["facts"][f"{BUG.ticket} rows"]
    assert rows[0]["read_back"] == 0 and len(rows) >= 3
    assert all(r["read_back"] == r["nulls_read"] == ELEMENTS for r in rows[1:])
    assert seen["query_id_after"] == seen["query_id_before"]
