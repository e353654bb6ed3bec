"""docs/spark-versions.md's fidelity row of Spark Connect: the seed's stories under the classic
API and under Spark Connect, check by check, rendered from a run, never by hand.

A run of `uv run python -m scenarios matrix --api classic,connect endless-retention
short-retention checkpoint-reset --fast --report R` leaves R/api-classic/ and R/api-connect/.
`uv run python -m scenarios.report.api_fidelity R` reads their scenario reports, keeps what the
table needs in docs/data/api-fidelity.json and writes the table between its markers: a row per
scenario, each API's verdict, and every check whose outcome differs between the two with what
it said under Connect. A fast test renders the table from the JSON again and compares.

Usage: `uv run python -m scenarios.report.api_fidelity reports/api`
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenarios.report.rewrite import replace_block, rewrite_or_check
from scenarios.report.verdicts import ScenarioResult, read_result

__all__ = [
    "PAGE",
    "DATA",
    "BEGIN",
    "END",
    "rows_of",
    "table_lines",
    "with_table",
    "main",
    "main_parser",
]

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "spark-versions.md"
DATA = DOCS / "data" / "api-fidelity.json"
BEGIN = (
    "<!-- API fidelity table: rendered from a run by "
    "`uv run python -m scenarios.report.api_fidelity R`; do not edit -->"
)
END = "<!-- end of the API fidelity table -->"
APIS = ("classic", "connect")


def _results(report: Path, api: str) -> dict[str, ScenarioResult]:
    folder = report / f"api-{api}"
    return {
        r.name: r
        for r in (read_result(p) for p in sorted(folder.glob("*.json")) if p.name != "matrix.json")
    }


def rows_of(report: Path) -> list[dict[str, Any]]:
    """One row per scenario run under both APIs: verdicts, and the checks that differ."""
    classic, connect = (_results(report, api) for api in APIS)
    rows = []
    for name in [n for n in classic if n in connect]:
        held_classic = {c.label: c.held for c in classic[name].checks}
        differs = [
            {"check": c.label, "classic_held": held_classic[c.label], "connect": c.actual}
            for c in connect[name].checks
            if c.label in held_classic and held_classic[c.label] != c.held
        ]
        rows.append(
            {"scenario": name, "differs": differs}
            | {api: _verdict(r[name]) for api, r in zip(APIS, (classic, connect))}
        )
    return rows


def _verdict(result: ScenarioResult) -> dict[str, Any]:
    return {
        "verdict": result.verdict,
        "held": sum(c.held for c in result.checks),
        "checks": len(result.checks),
        "duration_sec": round(result.duration_sec),
    }


def _cell(verdict: dict[str, Any]) -> str:
    return (
        f"{verdict['verdict']}, {verdict['held']} of {verdict['checks']} checks, "
        f"{verdict['duration_sec']} s"
    )


def _differences(row: dict[str, Any]) -> str:
    if not row["differs"]:
        return "none"
    return "; ".join(
        f"{d['check']}: {'held' if d['classic_held'] else 'did not hold'} under Classic, "
        f"under Connect {d['connect']}"
        for d in row["differs"]
    ).replace("|", "\\|")


def table_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The markdown table: a row per scenario."""
    lines = [
        "| scenario | Classic | Spark Connect | checks that differ |",
        "|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['scenario']} | {_cell(row['classic'])} | {_cell(row['connect'])} | "
            f"{_differences(row)} |"
        )
    return lines


def with_table(page: str, rows: Sequence[dict[str, Any]]) -> str:
    """The page's text with the block between the markers replaced by the table."""
    return replace_block(page, BEGIN, END, table_lines(rows), PAGE.name)


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios.report.api_fidelity",
        description="Render docs/spark-versions.md's Classic/Connect table from a matrix --api run.",
    )
    p.add_argument("report", type=Path, metavar="REPORT_DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    if not all((args.report / f"api-{api}").is_dir() for api in APIS):
        print(
            f"{args.report}: no api-classic/ and api-connect/ in it (matrix --api "
            "classic,connect --report writes them)",
            file=sys.stderr,
        )
        return 2
    rows = rows_of(args.report)
    # The page first, through the one rewriter: lost markers are one line and exit 2, and
    # the data is then left as it was.
    written = rewrite_or_check(PAGE, lambda text: with_table(text, rows), False, "", "")
    if written != 0:
        return written
    DATA.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{PAGE}: the Classic/Connect table, {len(rows)} row(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
