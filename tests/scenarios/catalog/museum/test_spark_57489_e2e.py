"""The Classic-to-Connect exhibit end to end (`run known-bugs --exhibits SPARK-57489 --fast`) on
the default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time:
three Spark starts, one under Spark Connect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-57489")
FIVE = ["group_long", "group_int", "group_text", "group_double", "group_even"]


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_five_column_dedup_moved_to_connect_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    classic_key = result["facts"][f"{BUG.ticket} classic key"].split(", ")
    # The five columns, in Classic's order: the Set's on a line with the bug, as written after.
    assert sorted(classic_key) == sorted(FIVE)
    assert (classic_key != FIVE) == (seen["outcome"] == BUG.when_present)
    assert checks[f"{BUG.ticket}: back on Classic, the checkpoint goes on"]["held"]
