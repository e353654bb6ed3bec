"""The cut-zip exhibit end to end (`run known-bugs --exhibits SPARK-56216 --fast`) on the default
stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: two Spark
starts on RocksDB with checkpoint format 2, the first until a snapshot is uploaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-56216")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_cut_zip_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, _seen, _checks = run_exhibit(tmp_path, BUG)
    cut = result["facts"][f"{BUG.ticket} cut"]
    # The zip cut was the one the restart loads, and no zip reader gets past it.
    assert cut["zip"].endswith(".zip") and not cut["opens"]
    assert cut["size_after"] == cut["size_before"] // 2
