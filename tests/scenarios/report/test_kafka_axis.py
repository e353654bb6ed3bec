"""docs/spark-versions.md's Kafka axis table is rendered from a recorded run, never by hand."""

from __future__ import annotations

import json
from pathlib import Path

from scenarios.checker.expectations import Check
from scenarios.report.kafka_axis import DATA, PAGE, merged, rows_of, table_lines, with_table
from scenarios.report.verdicts import ScenarioResult, write_reports


def test_the_page_holds_the_table_its_recorded_run_renders() -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page, rows) == page, (
        "docs/spark-versions.md's Kafka axis table is not docs/data/kafka-axis.json's: "
        "uv run python -m scenarios.report.kafka_axis R/kafka-*"
    )


def test_the_recorded_run_covers_the_new_kafka_releases() -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    seed = {"endless-retention", "short-retention", "checkpoint-reset", "kafka-upgrade"}
    for version in ("4.2.2", "4.3.1"):
        assert {r["scenario"] for r in rows if r["kafka"] == version} == seed


def _result(name: str, kafka: str, held: bool) -> ScenarioResult:
    result = ScenarioResult(name, name, checks=[Check("a", True, "", ""), Check("b", held, "", "")])
    result.kafka_version = kafka
    return result


def test_rows_come_from_the_reports_and_a_new_run_replaces_its_versions(tmp_path: Path) -> None:
    upgrade = _result("kafka-upgrade", "4.3.1", True)
    upgrade.facts = {
        "metadata_version_start": 29,
        "metadata_version_finalized": 33,
        "upgraded_broker_1": {"version": "4.4.0"},
    }
    write_reports([_result("checkpoint-reset", "4.3.1", False), upgrade], tmp_path)
    new = rows_of([tmp_path])
    assert [(r["scenario"], r["verdict"], r["held"], r["checks"]) for r in new] == [
        ("checkpoint-reset", "failed", 1, 2),
        ("kafka-upgrade", "passed", 2, 2),
    ]
    old = [dict(new[0], kafka="4.2.2"), dict(new[0], kafka="4.3.1", verdict="passed")]
    rows = merged(old, new)
    assert [(r["kafka"], r["verdict"]) for r in rows if r["scenario"] == "checkpoint-reset"] == [
        ("4.2.2", "failed"),
        ("4.3.1", "failed"),
    ]
    lines = table_lines(rows)
    assert lines[0] == "| scenario | Kafka 4.2.2 | Kafka 4.3.1 |"
    assert "metadata.version 29 until finalized to 33" in lines[-1]
    assert lines[-1].split(" | ")[1] == "not run"
