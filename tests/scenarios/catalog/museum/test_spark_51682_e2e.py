"""The offset-log-ahead guard end to end (`run known-bugs --exhibits SPARK-51682 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: two
Spark starts on RocksDB with checkpoint format 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import RAN_ON, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-51682")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_offset_log_ahead_guard_goes_on(tmp_path: Path) -> None:
    _result, seen, _checks = run_exhibit(tmp_path, BUG)
    assert seen["outcome"] == RAN_ON
