"""The README's table of scenarios, written from each scenario's SCENARIO so it cannot drift.

A scenario says once, in its module, what it teaches (`title`) and where it comes from
(`origin`). The README's table used to say it a second time by hand, and the two had begun to
differ. This writes the table between two markers in README.md from the registry, in `run all`'s
order, each name linking to its walk-through in docs/scenarios.md; how long each one takes is
measured, not told, and lives in docs/scenarios.md#how-long-they-take. A fast test fails when
the README's table is not what this would write.

Usage:
    uv run python -m scenarios.report.readme_table            # rewrites the table in README.md
    uv run python -m scenarios.report.readme_table --check    # exit 1 if README.md is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarios.engine.scenario import Scenario
from scenarios.registry import all_scenarios
from scenarios.report.rewrite import check_parser, replace_block, rewrite_or_check

__all__ = ["BEGIN", "END", "table_lines", "with_table", "main_parser", "README"]

README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN = (
    "<!-- scenarios table: written by `uv run python -m scenarios.report.readme_table`; "
    "edit the SCENARIOs, not this -->"
)
END = "<!-- end of the scenarios table -->"


def _row(scenario: Scenario) -> str:
    # A table cell cannot hold a bare "|"; no title has one today, and this keeps it so.
    lesson = scenario.title.replace("|", "\\|")
    link = f"[`{scenario.name}`](docs/scenarios.md#{scenario.name})"
    return f"| {link} | {lesson} | {scenario.origin} |"


def table_lines(scenarios: Sequence[Scenario]) -> list[str]:
    return ["| scenario | lesson | from |", "|---|---|---|", *(_row(s) for s in scenarios)]


def with_table(readme: str, scenarios: Sequence[Scenario]) -> str:
    """The README's text with the block between the markers replaced by the table."""
    return replace_block(readme, BEGIN, END, table_lines(scenarios), "README.md")


def main_parser() -> argparse.ArgumentParser:
    return check_parser(
        "python -m scenarios.report.readme_table",
        "Write README.md's table of scenarios from the code.",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    return rewrite_or_check(
        README,
        lambda text: with_table(text, all_scenarios()),
        args.check,
        "README.md's scenarios table is",
        "run the command above",
    )


if __name__ == "__main__":
    sys.exit(main())
