"""docs/puzzle.md's table of faults, written from the puzzle's own list so it cannot drift.

Each fault of scenarios/puzzle/faults.py is a row: its name, what happened, what diagnosis finds
first (the job's line) and the best repair, as `puzzle --answer S` prints them. A fast test
fails when the page's table is not what this would write.

Usage:
    uv run python -m scenarios.puzzle.table            # rewrites the table in docs/puzzle.md
    uv run python -m scenarios.puzzle.table --check    # exit 1 if docs/puzzle.md is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarios.puzzle import seed_for
from scenarios.puzzle.fault import Fault
from scenarios.puzzle.faults import FAULTS
from scenarios.report.rewrite import check_parser, replace_block, rewrite_or_check

__all__ = ["BEGIN", "END", "PAGE", "main_parser", "table_lines", "with_table"]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "puzzle.md"
BEGIN = (
    "<!-- puzzle faults: written by `uv run python -m scenarios.puzzle.table` from "
    "scenarios/puzzle/faults.py; edit the faults, not this -->"
)
END = "<!-- end of the puzzle faults -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(fault: Fault) -> str:
    return (
        f"| `{fault.name}` | {seed_for(fault.name)} | {_cell(fault.title)} | "
        f"{_cell(fault.sees[0])} | {_cell(fault.best[0])} |"
    )


def table_lines(faults: Sequence[Fault] = FAULTS) -> list[str]:
    return [
        "| fault | a seed | what happened | diagnosis finds first | the best repair |",
        "|---|---|---|---|---|",
        *(_row(f) for f in faults),
    ]


def with_table(page: str, faults: Sequence[Fault] = FAULTS) -> str:
    return replace_block(page, BEGIN, END, table_lines(faults), "docs/puzzle.md")


def main_parser() -> argparse.ArgumentParser:
    return check_parser(
        "python -m scenarios.puzzle.table", "Write docs/puzzle.md's table of faults from the code."
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    return rewrite_or_check(
        PAGE, with_table, args.check, "docs/puzzle.md's faults table is", "run the command above"
    )


if __name__ == "__main__":
    sys.exit(main())
