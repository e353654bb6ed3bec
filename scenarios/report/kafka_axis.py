"""docs/spark-versions.md's table of the seed's stories and kafka-upgrade per Kafka version,
rendered from a run, never by hand.

A run of `uv run python -m scenarios matrix --kafka-version V1,V2 endless-retention
short-retention checkpoint-reset kafka-upgrade --fast --report R` leaves one report folder per
version (R/kafka-<version>/). `uv run python -m scenarios.report.kafka_axis R/kafka-*` reads
them, keeps what the table needs in docs/data/kafka-axis.json (a later run of a version replaces
that version's rows and leaves the others) and writes the table between its markers. A fast test
renders the table from the JSON again and compares (tests/scenarios/report/test_kafka_axis.py).

Usage: `uv run python -m scenarios.report.kafka_axis reports/kafka-axis/kafka-*`
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

__all__ = ["PAGE", "DATA", "BEGIN", "END", "rows_of", "merged", "table_lines", "with_table", "main"]

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "spark-versions.md"
DATA = DOCS / "data" / "kafka-axis.json"
BEGIN = (
    "<!-- Kafka axis table: rendered from a run by "
    "`uv run python -m scenarios.report.kafka_axis R/kafka-*`; do not edit -->"
)
END = "<!-- end of the Kafka axis table -->"


def _row(result: ScenarioResult) -> dict[str, Any]:
    facts = result.facts
    upgrade = ""
    if "metadata_version_finalized" in facts:
        # kafka-upgrade's lesson in one cell: the level the run's Kafka wrote, and the one a
        # finalize to the target moved it to (after which the old binaries are refused).
        target = facts.get("upgraded_broker_1", {}).get("version", "?")
        upgrade = (
            f"to {target} and back, metadata.version {facts.get('metadata_version_start')} "
            f"until finalized to {facts['metadata_version_finalized']}"
        )
    return {
        "scenario": result.name,
        "kafka": result.kafka_version,
        "spark": result.spark_version,
        "stack": result.stack,
        "verdict": result.verdict,
        "held": sum(c.held for c in result.checks),
        "checks": len(result.checks),
        "duration_sec": round(result.duration_sec),
        "error": result.error or "",
        "upgrade": upgrade,
    }


def rows_of(reports: Sequence[Path]) -> list[dict[str, Any]]:
    """One row per scenario report in the folders (matrix.json left out)."""
    return [
        _row(read_result(path))
        for folder in reports
        for path in sorted(folder.glob("*.json"))
        if path.name != "matrix.json"
    ]


def merged(old: Sequence[dict[str, Any]], new: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recorded rows with the new run's versions replaced whole."""
    versions = {r["kafka"] for r in new}
    return [r for r in old if r["kafka"] not in versions] + list(new)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "not run"
    said = f"{row['verdict']}, {row['held']} of {row['checks']} checks, {row['duration_sec']} s"
    if row["error"]:
        said += f": {row['error'][:160]}"
    if row["upgrade"]:
        said += f"; {row['upgrade']}"
    return said.replace("|", "\\|")


def table_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The markdown table: a row per scenario, a column per Kafka version."""
    versions = sorted({r["kafka"] for r in rows}, key=_key)
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    by = {(r["scenario"], r["kafka"]): r for r in rows}
    lines = [
        "| scenario | " + " | ".join(f"Kafka {v}" for v in versions) + " |",
        "|---|" + "---|" * len(versions),
    ]
    for name in scenarios:
        lines.append(f"| {name} | " + " | ".join(_cell(by.get((name, v))) for v in versions) + " |")
    return lines


def with_table(page: str, rows: Sequence[dict[str, Any]]) -> str:
    """The page's text with the block between the markers replaced by the table."""
    return replace_block(page, BEGIN, END, table_lines(rows), PAGE.name)


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios.report.kafka_axis",
        description="Render docs/spark-versions.md's Kafka axis table from a matrix's reports.",
    )
    p.add_argument("reports", nargs="+", type=Path, metavar="REPORT_DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    for folder in args.reports:
        if not folder.is_dir():
            print(f"{folder}: no such report folder (matrix --report writes one)", file=sys.stderr)
            return 2
    old = json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else []
    rows = merged(old, rows_of(args.reports))
    # The page first, through the one rewriter: lost markers are one line and exit 2, and
    # the data is then left as it was.
    written = rewrite_or_check(PAGE, lambda text: with_table(text, rows), False, "", "")
    if written != 0:
        return written
    DATA.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{PAGE}: the Kafka axis table, {len(rows)} row(s), from {len(args.reports)} folder(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
