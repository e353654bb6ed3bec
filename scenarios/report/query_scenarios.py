"""docs/your-query.md's table of the scenarios that run a user's query, written from the code.

Each scenario that takes `--query` says once, in its SCENARIO's `with_query`, what it does with
the query; this writes the table between two markers in docs/your-query.md, in `run all`'s
order. A fast test fails when the page's table is not what this would write.

Usage:
    uv run python -m scenarios.report.query_scenarios            # rewrites the table
    uv run python -m scenarios.report.query_scenarios --check    # exit 1 if the page is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarios.engine.scenario import Scenario
from scenarios.registry import all_scenarios
from scenarios.report.rewrite import check_parser, replace_block, rewrite_or_check

__all__ = ["BEGIN", "END", "PAGE", "table_lines", "with_table", "main_parser", "main"]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "your-query.md"
BEGIN = (
    "<!-- query scenarios table: written by `uv run python -m scenarios.report.query_scenarios`; "
    "edit the SCENARIOs, not this -->"
)
END = "<!-- end of the query scenarios table -->"


def table_lines(scenarios: Sequence[Scenario]) -> list[str]:
    rows = [
        f"| `{s.name}` | {s.with_query.replace('|', chr(92) + '|')} |"
        for s in scenarios
        if s.takes_query
    ]
    return ["| scenario | with your query |", "|---|---|", *rows]


def with_table(page: str, scenarios: Sequence[Scenario]) -> str:
    """The page's text with the block between the markers replaced by the table."""
    return replace_block(page, BEGIN, END, table_lines(scenarios), PAGE.name)


def main_parser() -> argparse.ArgumentParser:
    return check_parser(
        "python -m scenarios.report.query_scenarios",
        "Write docs/your-query.md's table of the scenarios that take --query.",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    return rewrite_or_check(
        PAGE,
        lambda text: with_table(text, all_scenarios()),
        args.check,
        "docs/your-query.md's query scenarios table is",
        "run the command above",
    )


if __name__ == "__main__":
    sys.exit(main())
