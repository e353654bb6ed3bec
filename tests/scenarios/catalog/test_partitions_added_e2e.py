"""partitions-added end to end (`python -m scenarios run partitions-added --fast`): one run on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly); it took about
1.5 to 2.5 min (three Spark starts and two producer restarts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.partitions_added import GROWN_DOWN, WAITING_IN_NEW
from scenarios.checker.verify import verify_file
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.output_line import MessageLine, parse_line
from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_new_partitions_are_read_from_offset_zero_running_or_down_every_message_once(
        tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("partitions-added", reports)
    facts = result["facts"]
    assert facts["partition_1_first_offset"] == facts["partition_2_first_offset"] == 0
    assert facts["partition_2_held_at_restart"] >= WAITING_IN_NEW
    # The checkpoint a user would open: its last batch names every partition at its end.
    folder = reports / "partitions-added"
    info = read_checkpoint(folder / "checkpoints")
    assert info.last_committed is not None and info.last_committed.end is not None
    assert sorted(tp.partition for tp in info.last_committed.end) == list(range(GROWN_DOWN))
    assert [info.last_committed.end[tp] for tp in sorted(info.last_committed.end)] \
        == facts["committed_per_partition"]
    # The output log as `python -m scenarios verify` reads it, and each partition's offsets in
    # it: 0, 1, 2… once each, whenever the partition was added.
    log_file = folder / "log" / "streaming-output.log"
    log = verify_file(log_file)
    assert log.ok and log.highest == facts["messages_sent"]
    lines = [parse_line(t) for t in log_file.read_text(encoding="utf-8").splitlines()]
    for partition, end in enumerate(facts["committed_per_partition"]):
        offsets = sorted(m.offset for m in lines
                         if isinstance(m, MessageLine) and m.partition == partition)
        assert offsets == list(range(end)), f"partition {partition}"
