"""query-changes end to end (`python -m scenarios run query-changes --fast`): marked e2e, run
with --slow. One run on the default stack: what each restart on the one checkpoint did."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.query_changes import CAP, SHUFFLE_KEY
from scenarios.checker.verify import verify_file
from spark_app.checkpoint.reader import read_checkpoint
from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_shuffle_partitions_ignored_cap_applies_new_topic_from_earliest_pattern_resumes(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("query-changes", reports)
    facts = result["facts"]
    # The checkpoint a user would open: the last batch still says 1, whatever was asked.
    folder = reports / "query-changes"
    assert read_checkpoint(folder / "checkpoints").conf[SHUFFLE_KEY] == "1"
    assert facts["shuffle_partitions_asked"] != 1
    assert facts["capped_largest_batch"] <= CAP < facts["uncapped_largest_batch"]
    read_once = [
        c["name"] for c in checks_named(result, "Restart subscribed to a second topic") if c["held"]
    ]
    assert "second-topic messages read once each" in read_once
    # The output log as `python -m scenarios verify` reads it: every value once, and the second
    # topic's messages once each, after the pattern restart too.
    log = verify_file(folder / "log" / "streaming-output.log")
    assert log.ok and log.highest == facts["messages_sent"]
    assert log.foreign_messages == facts["second_topic_messages_read"] == 5
    assert log.final_count == log.highest + log.foreign_messages
