"""broker-failover end to end on Apache Kafka read through Spark's connector, as a user runs it:
`python -m scenarios run broker-failover --fast --stack apache/connector`. Marked e2e: three
Kafka JVMs and Spark, about 5 minutes on two cores.

Besides the verdict it checks what the scenario is for: part one lost nothing with the rule
kept; part two lost acknowledged messages behind the checkpoint, Spark stopped with
PARTITION_OFFSET_CHANGED naming the checkpoint's offset and the new log end, and restarted
with failOnDataLoss=false it went on from there. No JVM is left (run_scenario pgreps the
report folder, which every Kafka node names on its command line).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_the_rule_rides_out_a_dead_leader_and_an_unclean_election_rewinds_spark(
    tmp_path: Path,
) -> None:
    result = run_scenario("broker-failover", tmp_path / "reports", "--stack", "apache/connector")
    facts = result["facts"]
    assert result["stack"] == "apache/connector"
    assert checks_named(result, "Stop the producer, check the output log › exactly once")
    assert facts["part1_new_leader"] != facts["part1_killed_leader"]
    assert facts["part2_new_leader"] != facts["part2_leader"]
    lost_first, lost_last = facts["part2_lost_values"]
    assert lost_last >= lost_first  # acknowledged, then gone
    assert facts["part2_new_leader_log_end"] < facts["part2_checkpoint_offset"]
    assert facts["error_offset_change"] == [
        facts["part2_checkpoint_offset"],
        facts["part2_new_leader_log_end"],
    ]
    assert checks_named(result, "data-loss condition for a changed offset")
    assert checks_named(result, "failOnDataLoss=false; the producer goes on › missing values")
    assert checks_named(result, "the values Kafka lost are counted, and gone from Kafka")
