"""checkpoint-moved-and-shared end to end (`python -m scenarios run checkpoint-moved-and-shared
--fast`): one run on the default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly
lists its measured time: five Spark starts, two pairs of them side by side)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.checker.shared_checkpoint import counted_values
from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_copy_is_the_same_query_and_a_second_writer_stops_on_the_log(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("checkpoint-moved-and-shared", reports)
    facts = result["facts"]
    assert facts["moved_query_id"] == facts["query_id"] is not None
    # Which app loses depends on the moment; that one of them does is the point.
    assert facts["stopped_app"] in ("spark", "second")
    assert facts["stopped_app_line"].startswith("CHECKPOINT_SHARED: [CONCURRENT_STREAM_LOG_UPDATE]")
    assert facts["collided_on"] in ("offsets", "commits")
    # Only an app that ran the batch to its end (then lost on commits/N) wrote it twice.
    assert bool(facts["written_by_both"]) == (facts["collided_on"] == "commits")
    assert facts["old_path_written_again"] > 0
    # The topic starts at 0 on one partition, so every message's Count is its value, in each
    # app's log: the job's, the second's (empty when it lost on offsets/N, before running the
    # batch) and the mistaken copy's, which start mid-stream from the state they loaded.
    folder = reports / "checkpoint-moved-and-shared"
    for log in (folder / "log", folder / "second" / "log", folder / "old-path" / "log"):
        pairs = counted_values(log / "streaming-output.log")
        assert all(count == value for value, count in pairs), log
        assert pairs or log.parent.name == "second", log
