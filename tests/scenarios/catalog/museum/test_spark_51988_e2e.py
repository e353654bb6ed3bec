"""The snapshot-zip exhibit end to end (`run known-bugs --exhibits SPARK-51988 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: two
Spark starts on RocksDB with checkpoint format 2, the first until a snapshot is uploaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import RAN_ON, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-51988")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_snapshot_zip_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    # The byte flipped was in the zip the restart loads, and left its files as they were.
    flip = result["facts"][f"{BUG.ticket} flip"]
    assert flip["zip"].endswith(".zip") and flip["files_unchanged"]
    assert checks[f"{BUG.ticket}: the flipped zip still opens, its files unchanged"]["held"]
    if seen["outcome"] in (RAN_ON, BUG.when_fixed):  # it went on: the count is right
        assert checks[f"{BUG.ticket}: the restart went on, the count right"]["held"]
