"""docs/your-query.md's two tables, rendered from runs, never by hand.

- **changes**: each pair of queries/changes/ through `check-change`, its verdict as the run
  gave it (`uv run python -m scenarios check-change DIR/old.py DIR/new.py --fast --report R`);
- **gallery**: each gallery query through the scenarios that take one
  (`uv run python -m scenarios run … --fast --query queries/X.py --report R`).

`uv run python -m scenarios.report.query_tables changes R1 R2 …` (or `gallery`) reads those
reports, keeps what the table needs in docs/data/<table>.json and writes the table between its
markers in docs/your-query.md. A fast test renders the table from the JSON again and compares
(tests/scenarios/report/test_query_tables.py): the page cannot drift from the recorded run.

Usage: `uv run python -m scenarios.report.query_tables changes reports/changes/*`
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scenarios.engine.spark_envs import locked_spark_version
from scenarios.report.verdicts import read_result

__all__ = ["PAGE", "DATA", "changes_rows", "gallery_rows", "table", "with_table", "main"]

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "your-query.md"
DATA = DOCS / "data"
COMMAND = "uv run python -m scenarios.report.query_tables"


def begin(name: str) -> str:
    return f"<!-- {name} table: rendered from a run by `{COMMAND} {name} …`; do not edit -->"


def end(name: str) -> str:
    return f"<!-- end of the {name} table -->"


def _results(reports: Sequence[Path]) -> list[Any]:
    return [
        read_result(path)
        for folder in reports
        for path in sorted(folder.glob("*.json"))
        if path.name not in ("matrix.json",)
    ]


def changes_rows(reports: Sequence[Path]) -> list[dict[str, str]]:
    """One row per check-change run: the pair, the lines, the verdict and its words."""
    rows = []
    locked = locked_spark_version()
    for result in _results(reports):
        change, verdict = result.facts.get("change"), result.facts.get("change_verdict")
        if not change:
            continue
        kind = verdict["kind"] if verdict else f"error: {result.error}"
        rows.append(
            {
                "pair": Path(change["new"]).parent.name,
                "lines": f"{change['from'] or result.spark_version or locked} → "
                f"{change['to'] or result.spark_version or locked}",
                "verdict": kind,
                "says": (verdict or {}).get("line", result.error or "")[:240],
                "spark": result.spark_version or "",
            }
        )
    return sorted(rows, key=lambda r: (r["pair"], r["lines"]))


def gallery_rows(reports: Sequence[Path]) -> list[dict[str, str]]:
    """One row per scenario run with a query: the query, the scenario, its verdict."""
    rows = []
    for result in _results(reports):
        query = result.facts.get("query")
        if not query:
            continue
        held = sum(c.held for c in result.checks)
        rows.append(
            {
                "query": Path(query).stem,
                "scenario": result.name,
                "verdict": result.verdict.upper(),
                "says": f"{held}/{len(result.checks)} checks held"
                + (f"; {result.error}" if result.error else ""),
                "spark": result.spark_version or "",
            }
        )
    return sorted(rows, key=lambda r: (r["query"], r["scenario"]))


def table(name: str, rows: Sequence[dict[str, str]]) -> str:
    """The markdown table of `rows`, as the page shows it."""
    if name == "changes":
        head = ["pair", "Spark lines", "verdict", "what the run said"]
        cells = [[f"`{r['pair']}`", r["lines"], f"**{r['verdict']}**", r["says"]] for r in rows]
    else:
        head = ["query", "scenario", "verdict", "checks"]
        cells = [[f"`{r['query']}`", r["scenario"], f"**{r['verdict']}**", r["says"]] for r in rows]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    return "\n".join(lines)


def with_table(page: str, name: str, rows: Sequence[dict[str, str]]) -> str:
    """The page with the table between its markers (a ValueError names missing markers)."""
    head, tail = begin(name), end(name)
    if head not in page or tail not in page:
        raise ValueError(
            f"{PAGE.name} has no markers for the {name} table: add {head!r} and {tail!r}"
        )
    before, rest = page.split(head, 1)
    _, after = rest.split(tail, 1)
    return f"{before}{head}\n{table(name, rows)}\n{tail}{after}"


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios.report.query_tables",
        description="Render docs/your-query.md's tables from runs' reports.",
    )
    p.add_argument("what", choices=("changes", "gallery"))
    p.add_argument("reports", nargs="+", type=Path, metavar="REPORT_DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    name, reports = args.what, args.reports
    rows = changes_rows(reports) if name == "changes" else gallery_rows(reports)
    DATA.mkdir(exist_ok=True)
    (DATA / f"{name}.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    PAGE.write_text(with_table(PAGE.read_text(encoding="utf-8"), name, rows), encoding="utf-8")
    print(f"{PAGE}: the {name} table, {len(rows)} row(s), from {len(reports)} report folder(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
