"""The Kafka-cut exhibit end to end (`run known-bugs --exhibits SPARK-55561 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: a
batch read and a stream, each a Spark start under a cut of 9 to 16 s: 44 to 53 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import RAN_ON, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-55561")


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_cut_at_the_first_look_up_fails_a_batch_read_only_where_the_table_says(
    tmp_path: Path,
) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    assert checks[f"{BUG.ticket}: the cut met the read's first offset look-up"]["held"]
    # The stream's look-ups are retried on every line: the same cut is ridden out.
    assert result["facts"][f"{BUG.ticket} stream"]["outcome"] == RAN_ON
    assert checks[f"{BUG.ticket}: a stream rides out the cut at its first look-up"]["held"]
