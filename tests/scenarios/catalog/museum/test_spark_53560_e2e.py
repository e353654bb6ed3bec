"""The AvailableNow exhibit end to end (`run known-bugs --exhibits SPARK-53560 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: three
Spark starts on a fixed line, five on one with the bug)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import PRESENT, bug_named, line_of
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-53560")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_available_now_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    assert checks[f"{BUG.ticket}: the backfill stopped mid-run with a batch planned"]["held"]
    if BUG.lines[line_of(seen["spark"])] == PRESENT:
        assert checks[f"{BUG.ticket}: every restart fails alike (a crash loop)"]["held"]
    else:
        assert checks[f"{BUG.ticket}: the backfill drains every partition, then stops"]["held"]
