"""docs/your-query.md's table of the scenarios that take --query is written from their code."""

from __future__ import annotations

from scenarios.registry import all_scenarios
from scenarios.report.query_scenarios import PAGE, main, table_lines, with_table


def test_the_page_holds_the_table_the_catalog_writes() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page, all_scenarios()) == page, (
        "docs/your-query.md's query scenarios table is stale: "
        "uv run python -m scenarios.report.query_scenarios"
    )
    assert main(["--check"]) == 0


def test_every_scenario_that_takes_a_query_says_what_it_does_with_it() -> None:
    taking = [s for s in all_scenarios() if s.takes_query]
    assert len(taking) >= 7
    assert [s.name for s in taking if not s.with_query.strip()] == []
    rows = table_lines(all_scenarios())[2:]
    assert [row.split("`")[1] for row in rows] == [s.name for s in taking]
    # A scenario that does not take one says why instead.
    assert all(s.without_query for s in all_scenarios() if not s.takes_query)
