"""partitions-added end to end (`python -m scenarios run partitions-added --fast`): one run on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly); see there for its
measured time (four Spark starts, one of them failing on purpose, and three producer restarts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.partitions_added import GROWN_DOWN, WAITING_IN_NEW
from scenarios.checker.verify import verify_file
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import PartitionsDeletedError
from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_new_partitions_from_offset_zero_and_a_recreated_topic_fails_then_skips(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("partitions-added", reports)
    facts = result["facts"]
    assert facts["partition_1_first_offset"] == facts["partition_2_first_offset"] == 0
    assert facts["partition_2_held_at_restart"] >= WAITING_IN_NEW
    assert len(facts["committed_per_partition"]) == GROWN_DOWN
    assert facts["recreated_error"] == PartitionsDeletedError.token
    # The checkpoint a user would open: after the recreated topic, one partition again.
    folder = reports / "partitions-added"
    info = read_checkpoint(folder / "checkpoints")
    assert info.last_committed is not None and info.last_committed.end is not None
    assert [tp.partition for tp in info.last_committed.end] == [0]
    # The output log as `python -m scenarios verify` reads it: every value once but the new
    # topic's first messages, which failOnDataLoss=false skipped.
    log = verify_file(folder / "log" / "streaming-output.log")
    first, last = facts["recreated_skipped"]
    assert [(r.first, r.last) for r in log.missing] == [(first, last)]
    assert not log.duplicated and log.highest == facts["messages_sent"]


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_users_query_reads_the_new_partitions_and_the_oracle_finds_every_record(
    tmp_path: Path,
) -> None:
    result = run_scenario(
        "partitions-added", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    checks = {c["name"] for c in result["checks"] if c["held"]}
    assert {
        "the running query reads the new partition, no restart",
        "the restarted query reads the new partition up to what it held",
        "exactly once",  # the oracle's, over every partition's records
        "the restart fails",
        "the new topic is read from the planned end, once",
    } <= checks
    facts = result["facts"]
    assert facts["query"].endswith("queries/count_per_key.py")
    assert facts["partition_2_held_at_restart"] == WAITING_IN_NEW
