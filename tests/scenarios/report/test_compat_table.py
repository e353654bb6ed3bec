"""docs/spark-versions.md's compat table is rendered from a recorded compat run, never by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.checker.expectations import Check
from scenarios.report.compat_table import (
    BENCHMARKS,
    DATA,
    PAGE,
    TIMES_BEGIN,
    TIMES_END,
    compat_rows,
    merged,
    read_reports,
    render,
    table,
    times,
)
from scenarios.report.rewrite import replace_block
from scenarios.report.verdicts import ScenarioResult, write_reports


def test_the_page_holds_the_table_its_recorded_run_renders() -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    assert rows, "docs/data/compat.json holds no cell: render it from a compat run's reports"
    assert render(page, rows) == page, (
        "docs/spark-versions.md's compat table is not docs/data/compat.json's: "
        "uv run python -m scenarios.report.compat_table REPORT_DIR"
    )
    costs = BENCHMARKS.read_text(encoding="utf-8")
    assert replace_block(costs, TIMES_BEGIN, TIMES_END, times(rows), "BENCHMARKS.md") == costs, (
        "BENCHMARKS.md's compat seconds are not docs/data/compat.json's: "
        "uv run python -m scenarios.report.compat_table"
    )


def _cell(name: str, query: str, variant: str, pair: tuple[str, str], line: str) -> ScenarioResult:
    result = ScenarioResult(name, name, checks=[Check("c", line.startswith("continues:"), "", "")])
    result.duration_sec = 61.4
    result.facts = {
        "compat": {"query": query, "variant": variant, "from": pair[0], "to": pair[1]},
        "change_verdict": {"kind": line.split(":")[0], "line": line},
    }
    return result


def test_a_cell_reads_continues_refused_with_sparks_class_or_differs(tmp_path: Path) -> None:
    write_reports(
        [
            _cell("a", "dedup", "hdfs", ("4.2.0", "4.0.0"), "refused: STATE_X.Y: start anew (…)"),
            _cell("b", "counter", "rocksdb", ("4.0.0", "4.2.0"), "continues: 30 rows agree"),
            _cell("c", "dedup", "hdfs", ("4.0.0", "4.2.0"), "continues but differs: key 3"),
            _cell("d", "counter", "hdfs", ("4.0.0", "4.2.0"), "refused: the restart failed: x"),
            ScenarioResult("chaos", "not a compat cell"),
        ],
        tmp_path,
    )
    rows = compat_rows(read_reports([tmp_path]))
    assert [(r["query"], r["variant"]) for r in rows] == [
        ("counter", "hdfs"),
        ("counter", "rocksdb"),
        ("dedup", "hdfs"),
        ("dedup", "hdfs"),
    ]
    assert rows[0]["error_class"] == "" and rows[0]["seconds"] == 61
    lines = table(rows)
    assert lines[0] == "| query | store, format | 4.0.0 → 4.2.0 | 4.2.0 → 4.0.0 |"
    assert "| `counter` | hdfs | refused | not run |" in lines
    assert "| `counter` | rocksdb | continues | not run |" in lines
    assert "| `dedup` | hdfs | **continues but differs** | refused: `STATE_X.Y` |" in lines
    assert "| 4.0.0 → 4.2.0 | 3 | 183 | 61 | 61 |" in times(rows)


def test_a_page_that_lost_its_markers_is_named_not_rewritten() -> None:
    with pytest.raises(ValueError, match="spark-versions.md has lost a rendered block"):
        render("# no markers here\n", [])


def test_a_slices_run_replaces_its_cells_and_keeps_the_others() -> None:
    def cell(query: str, to: str, verdict: str) -> dict[str, object]:
        return {"query": query, "variant": "", "from": "4.0.0", "to": to, "verdict": verdict}

    kept = [cell("dedup", "4.2.0", "continues but differs"), cell("counter", "4.2.0", "continues")]
    rows = merged(kept, [cell("dedup", "4.2.0", "continues")])
    assert rows == [cell("counter", "4.2.0", "continues"), cell("dedup", "4.2.0", "continues")]
