"""The checksum exhibit end to end (`run known-bugs --exhibits SPARK-51972 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: five
Spark starts, one of them killed and one refused or rewound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-51972")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_checksum_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    assert f"{BUG.ticket}: checksum files on format 1" in checks
    assert f"{BUG.ticket}: a real retry leaves a state file its checksum matches" in checks
    # The real retry had a batch planned and not committed, and found its state file.
    retried = result["facts"][f"{BUG.ticket} retried file"]
    assert retried["before"] is not None and retried["after"] is not None
