"""The shuffle-partitions exhibit end to end (`run known-bugs --exhibits SPARK-53942 --fast`) on
the default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time:
two Spark starts, the second asked for more shuffle partitions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_53942 import (
    ASKED_PARTITIONS,
    FIRST_PARTITIONS,
    SHUFFLE_KEY,
    STATE_KEY,
)
from spark_app.lines.known_bug_table import SHUFFLES_FOLLOWED, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-53942")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_shuffle_partitions_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    restart = result["facts"][f"{BUG.ticket} restart"]
    # The state stayed where the first batch put it, on every line.
    assert restart["state_partitions"] == list(range(FIRST_PARTITIONS))
    assert checks[f"{BUG.ticket}: the state stayed in the checkpoint's partitions"]["held"]
    # Spark took one setting back from the checkpoint: the state's own from 4.1, the
    # shuffle's before, from the number asked to the checkpoint's.
    key = STATE_KEY if seen["outcome"] == SHUFFLES_FOLLOWED else SHUFFLE_KEY
    assert restart["rebound"][key] == [str(ASKED_PARTITIONS), str(FIRST_PARTITIONS)]
