"""docs/spark-versions.md's compat table, rendered from a `scenarios compat` run, never by hand.

`uv run python -m scenarios compat … --report R` leaves a report per cell in R;
`uv run python -m scenarios.report.compat_table R1 R2 …` keeps what the table needs in
docs/data/compat.json (a row per cell: the query, its variant, the two lines, the verdict, the
run's words and seconds) and writes the table between its markers in docs/spark-versions.md;
`--check` only says whether the page is stale; `--times` prints the seconds per line pair that
BENCHMARKS.md shows. A fast test renders the table from the JSON again
and compares (tests/scenarios/report/test_compat_table.py): the page cannot drift from the run.

The table has a row per query and variant and a column per ordered line pair, the writing line
first; a cell reads `continues`, `refused: <Spark's error class>` or `continues but differs`, or
`not run` for a pair the run left out.

Usage: `uv run python -m scenarios.report.compat_table reports/compat`
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenarios.checker.change_verdict import CONTINUES, REFUSED
from scenarios.report.rewrite import replace_block, rewrite_or_check
from scenarios.report.verdicts import ScenarioResult, read_result

__all__ = [
    "BENCHMARKS",
    "TIMES_BEGIN",
    "TIMES_END",
    "PAGE",
    "DATA",
    "BEGIN",
    "END",
    "compat_rows",
    "merged",
    "read_reports",
    "table",
    "times",
    "render",
    "main",
]

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "spark-versions.md"
DATA = DOCS / "data" / "compat.json"
COMMAND = "uv run python -m scenarios.report.compat_table"
BEGIN = f"<!-- compat table: rendered from a run by `{COMMAND} …`; do not edit -->"
END = "<!-- end of the compat table -->"
BENCHMARKS = DOCS.parent / "BENCHMARKS.md"
TIMES_BEGIN = (
    f"<!-- compat seconds per line pair: rendered by `{COMMAND}` from the data; do not edit -->"
)
TIMES_END = "<!-- end of the compat seconds -->"
_CLASS = re.compile(r"[A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*")


def _row(result: ScenarioResult) -> dict[str, Any] | None:
    cell = result.facts.get("compat")
    if not cell:
        return None
    verdict = result.facts.get("change_verdict")
    line = verdict["line"] if verdict else f"error: {result.error or 'no verdict'}"
    kind = verdict["kind"] if verdict else "error"
    return {
        "query": cell["query"],
        "variant": cell["variant"],
        "from": cell["from"],
        "to": cell["to"],
        "verdict": kind,
        # A refusal's cell names Spark's error class: the line's head (change_verdict.refusal).
        "error_class": _error_class(line) if kind == REFUSED else "",
        "says": line[:300],
        "seconds": round(result.duration_sec),
    }


def _error_class(line: str) -> str:
    """Spark's error class at the head of a refusal's line ("refused: CLASS: what to do …"),
    "" when Spark named none."""
    head = line.split(":", 2)[1].strip() if line.count(":") >= 2 else ""
    return head if _CLASS.fullmatch(head) else ""


def read_reports(reports: Sequence[Path]) -> list[ScenarioResult]:
    """Every scenario's result in the report folders."""
    return [read_result(path) for folder in reports for path in sorted(folder.glob("*.json"))]


def compat_rows(results: Sequence[ScenarioResult]) -> list[dict[str, Any]]:
    """A row per compat cell among `results`, in the matrix's order (the counter first)."""
    rows = [row for result in results if (row := _row(result)) is not None]
    return sorted(
        rows, key=lambda r: (r["query"] != "counter", r["query"], r["variant"], r["from"], r["to"])
    )


def merged(kept: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table's cells after a run of a slice: each cell it ran replaces the kept one of the
    same query, variant and line pair; the others stay (the matrix is filled slice by slice)."""

    def key(row: dict[str, Any]) -> tuple[str, str, str, str]:
        return (row["query"], row["variant"], row["from"], row["to"])

    fresh = {key(row) for row in new}
    rows = [row for row in kept if key(row) not in fresh] + list(new)
    return sorted(
        rows, key=lambda r: (r["query"] != "counter", r["query"], r["variant"], r["from"], r["to"])
    )


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "not run"
    if row["verdict"] == REFUSED:
        return f"refused: `{row['error_class']}`" if row["error_class"] else "refused"
    if row["verdict"] == CONTINUES:
        return CONTINUES
    return f"**{row['verdict']}**"


def table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The table's lines: a row per query and variant, a column per line pair."""
    pairs = sorted({(r["from"], r["to"]) for r in rows})
    kinds = list(dict.fromkeys((r["query"], r["variant"]) for r in rows))
    by = {(r["query"], r["variant"], r["from"], r["to"]): r for r in rows}
    head = ["query", "store, format", *(f"{f} → {t}" for f, t in pairs)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for query, variant in kinds:
        cells = [_cell(by.get((query, variant, f, t))) for f, t in pairs]
        lines.append("| " + " | ".join([f"`{query}`", variant, *cells]) + " |")
    return lines


def times(rows: Sequence[dict[str, Any]]) -> list[str]:
    """BENCHMARKS.md's lines: per line pair, its cells, their seconds in all, mean and slowest."""
    lines = ["| line pair | cells | seconds in all | mean per cell (s) | slowest cell (s) |"]
    lines.append("|---|---|---|---|---|")
    for pair in sorted({(r["from"], r["to"]) for r in rows}):
        took = [r["seconds"] for r in rows if (r["from"], r["to"]) == pair]
        lines.append(
            f"| {pair[0]} → {pair[1]} | {len(took)} | {sum(took)} | "
            f"{sum(took) / len(took):.0f} | {max(took)} |"
        )
    return lines


def render(page: str, rows: Sequence[dict[str, Any]]) -> str:
    """The page with the table between its markers (a ValueError names them when lost)."""
    return replace_block(page, BEGIN, END, table(rows), PAGE.name)


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios.report.compat_table",
        description="Render docs/spark-versions.md's compat table from compat runs' reports "
        "(none: from docs/data/compat.json as it is).",
    )
    p.add_argument("reports", nargs="*", type=Path, metavar="REPORT_DIR")
    p.add_argument("--check", action="store_true", help="only say whether the page is stale")
    p.add_argument(
        "--times",
        action="store_true",
        help="only print the seconds per line pair, from docs/data/compat.json (BENCHMARKS.md)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    for folder in args.reports:
        if not folder.is_dir():
            print(f"{folder}: no such report folder (compat --report writes one)", file=sys.stderr)
            return 2
    if args.reports and not args.check:
        new = compat_rows(read_reports(args.reports))
        rows = merged(json.loads(DATA.read_text(encoding="utf-8")), new)
        DATA.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{DATA}: {len(new)} cell(s) from {len(args.reports)} report folder(s)")
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    if args.times:
        print("\n".join(times(rows)))
        return 0
    page = rewrite_or_check(
        PAGE,
        lambda text: render(text, rows),
        args.check,
        f"{PAGE.name}'s compat table is",
        f"run `{COMMAND}`",
    )
    # BENCHMARKS.md's seconds per line pair come from the same data, so they cannot drift.
    costs = rewrite_or_check(
        BENCHMARKS,
        lambda text: replace_block(text, TIMES_BEGIN, TIMES_END, times(rows), BENCHMARKS.name),
        args.check,
        f"{BENCHMARKS.name}'s compat seconds are",
        f"run `{COMMAND}`",
    )
    return max(page, costs)


if __name__ == "__main__":
    sys.exit(main())
