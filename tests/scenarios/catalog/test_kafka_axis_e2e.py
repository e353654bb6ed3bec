"""The Kafka axis's newest patch releases end to end, as docs/spark-versions.md's table was run:
the seed's three stories and kafka-upgrade on Kafka 4.2.2 and 4.3.1, default stack, `--fast`.
About 9 min per version at a load of 4 to 9 (29 Nov 2026), so nightly (docs/testing.md#nightly).

Besides each verdict it checks what the axis is for: every report names the Kafka it ran, and
kafka-upgrade rolled from that version to its target and back before finalizing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import run_scenario

SEED_STORIES = ("endless-retention", "short-retention", "checkpoint-reset")


@pytest.mark.e2e
@pytest.mark.nightly
@pytest.mark.parametrize("version", ["4.2.2", "4.3.1"])
def test_the_seeds_stories_and_a_rolling_upgrade_hold_on_the_newest_kafka_releases(
    tmp_path: Path, version: str
) -> None:
    for name in SEED_STORIES:
        result = run_scenario(name, tmp_path / name, "--kafka-version", version)
        assert result["kafka_version"] == version
    upgrade = run_scenario("kafka-upgrade", tmp_path / "upgrade", "--kafka-version", version)
    facts = upgrade["facts"]
    assert upgrade["kafka_version"] == version
    assert facts["start_broker_1"]["version"] == version
    assert facts["upgraded_broker_1"]["version"] != version
    assert facts["metadata_version_finalized"] > facts["metadata_version_start"]
