"""docs/your-query.md's tables are rendered from a recorded run, never by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.checker.expectations import Check
from scenarios.report.query_tables import DATA, PAGE, changes_rows, gallery_rows, table, with_table
from scenarios.report.verdicts import ScenarioResult, write_reports


@pytest.mark.parametrize("name", ["changes", "gallery"])
def test_the_page_holds_the_table_its_recorded_run_renders(name: str) -> None:
    data = DATA / f"{name}.json"
    rows = json.loads(data.read_text()) if data.exists() else []
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page, name, rows) == page, (
        f"docs/your-query.md's {name} table is not docs/data/{name}.json's: "
        f"uv run python -m scenarios.report.query_tables {name} REPORT_DIR …"
    )


def test_rows_come_from_the_reports_a_run_writes(tmp_path: Path) -> None:
    refused = ScenarioResult("check-change", "old.py to new.py", checks=[Check("c", False, "", "")])
    refused.facts = {
        "change": {
            "old": "queries/changes/03-x/old.py",
            "new": "queries/changes/03-x/new.py",
            "from": "",
            "to": "4.2.0",
        },
        "change_verdict": {
            "kind": "refused",
            "line": "refused: STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
        },
    }
    ran = ScenarioResult("chaos", "kill -9", checks=[Check("exactly once", True, "", "")])
    ran.facts = {"query": "queries/dedup.py"}
    write_reports([refused, ran], tmp_path)
    assert changes_rows([tmp_path]) == [
        {
            "pair": "03-x",
            "lines": "4.2.0 → 4.2.0",
            "verdict": "refused",
            "says": "refused: STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
            "spark": "",
        }
    ]
    [row] = gallery_rows([tmp_path])
    assert row["query"] == "dedup" and row["verdict"] == "PASSED"
    assert "| `03-x` | 4.2.0 → 4.2.0 | **refused** |" in table("changes", changes_rows([tmp_path]))
