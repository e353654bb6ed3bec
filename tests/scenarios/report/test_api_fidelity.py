"""docs/spark-versions.md's Classic/Connect table is rendered from a recorded run, never by hand."""

from __future__ import annotations

import json
from pathlib import Path

from scenarios.checker.expectations import Check
from scenarios.report.api_fidelity import DATA, PAGE, main, rows_of, table_lines, with_table
from scenarios.report.verdicts import ScenarioResult, write_reports


def test_the_page_holds_the_table_its_recorded_run_renders() -> None:
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page, rows) == page, (
        "docs/spark-versions.md's Classic/Connect table is not docs/data/api-fidelity.json's: "
        "uv run python -m scenarios.report.api_fidelity R"
    )
    assert {r["scenario"] for r in rows} == {
        "endless-retention",
        "short-retention",
        "checkpoint-reset",
    }


def _result(name: str, exit_held: bool) -> ScenarioResult:
    checks = [
        Check("caught up exactly once", True, "every value once", "166 once", step="kill -9"),
        Check("the app exited 255", exit_held, "exit code 255", "exit code 1", step="crash"),
    ]
    return ScenarioResult(name, name, checks=checks)


def test_a_check_that_holds_under_one_api_only_is_named_with_what_connect_said(
    tmp_path: Path,
) -> None:
    write_reports([_result("endless-retention", True)], tmp_path / "api-classic")
    write_reports([_result("endless-retention", False)], tmp_path / "api-connect")
    [row] = rows_of(tmp_path)
    assert (row["classic"]["held"], row["connect"]["held"]) == (2, 1)
    [differs] = row["differs"]
    assert differs["check"].endswith("the app exited 255") and differs["connect"] == "exit code 1"
    line = table_lines([row])[-1]
    assert "held under Classic, under Connect exit code 1" in line
    assert "caught up exactly once" not in line  # the same under both: not a difference


def test_a_folder_without_both_apis_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([str(tmp_path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "no api-classic/ and api-connect/" in line


def test_a_page_that_lost_its_markers_is_one_line_and_the_data_is_left_alone(
    tmp_path: Path,
    monkeypatch,
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    write_reports([_result("endless-retention", True)], tmp_path / "api-classic")
    write_reports([_result("endless-retention", False)], tmp_path / "api-connect")
    page, data = tmp_path / "page.md", tmp_path / "data.json"
    page.write_text("# no markers here\n", encoding="utf-8")
    data.write_text("[]\n", encoding="utf-8")
    monkeypatch.setattr("scenarios.report.api_fidelity.PAGE", page)
    monkeypatch.setattr("scenarios.report.api_fidelity.DATA", data)
    assert main([str(tmp_path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "lost a rendered block's markers" in line
    assert data.read_text(encoding="utf-8") == "[]\n" and "no markers" in page.read_text()
