"""kafka-upgrade end to end on Apache Kafka read through Spark's connector, as a user runs it:
`python -m scenarios run kafka-upgrade --fast --stack apache/connector`. Three Kafka JVMs
restarted seven times on two versions under a running query, and Spark: 164 to 250 s at a
load of 4 to 15 (26 Nov 2026), so nightly (docs/testing.md#nightly).

Besides the verdict it checks what the scenario is for: every broker ran the target version
and the source version again, metadata.version stayed put until finalized, the connector's
kafka-clients spoke the same versions to both, the downgrade and the old broker were refused,
and every message was counted once. No JVM is left (run_scenario pgreps the report folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_rolling_upgrade_and_back_loses_nothing_until_metadata_version_is_finalized(
    tmp_path: Path,
) -> None:
    result = run_scenario("kafka-upgrade", tmp_path / "reports", "--stack", "apache/connector")
    facts = result["facts"]
    assert result["stack"] == "apache/connector"
    assert [facts[f"upgraded_broker_{n}"]["version"] for n in (1, 2, 3)] == ["4.4.0"] * 3
    start, upgraded = facts["start_broker_1"], facts["upgraded_broker_1"]
    assert (
        start["metadata_version"] == upgraded["metadata_version"] == facts["metadata_version_start"]
    )
    assert facts["metadata_version_finalized"] > facts["metadata_version_start"]
    assert facts["client"]["name"].startswith("kafka-clients 3.")
    assert "downgrade" in facts["downgrade_refusal"]
    assert str(facts["metadata_version_finalized"]) in facts["old_broker_refusal"]
    assert checks_named(result, "metadata.version unchanged by new binaries")
    assert checks_named(result, "check the output log › exactly once")
