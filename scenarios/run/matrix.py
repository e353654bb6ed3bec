"""The same scenarios on several PySpark versions, or on several stacks (which Kafka, which
source), compared check by check: what an upgrade changes, and where a stand-in differs from
the real thing.

Each version runs the scenarios exactly as `run --spark VERSION` does (the Spark app in that
version's environment, scenarios/engine/spark_envs.py; Kafka and the checks unchanged). The comparison
has a row per check and a column per version; a row whose outcome or figure is not the same in
every column is marked, because that is what a Spark upgrade would change for a production job
(an error condition renamed, a refused change now allowed, a slower start).

Usage:
    matrix = run_matrix(["4.0.0", "4.2.0"], find_scenarios(["endless-retention"]), settings,
                        Narrator(), report_dir=None)
    print_matrix(matrix, Console())
    sys.exit(matrix.exit_code)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings
from scenarios.engine.spark_envs import locked_spark_version, spark_python
from scenarios.engine.stacks import Stack
from scenarios.report.matrix_row import MatrixRow
from scenarios.report.narration import Narrator
from scenarios.report.pages import Column, write_matrix_page
from scenarios.report.verdicts import ScenarioResult, write_junit
from scenarios.run.runner import run_scenarios

__all__ = [
    "APIS",
    "Matrix",
    "on_spark",
    "print_matrix",
    "run_api_matrix",
    "run_kafka_matrix",
    "run_matrix",
    "run_stack_matrix",
    "run_store_matrix",
    "write_matrix",
]

_ABSENT = "—"


def on_spark(settings: RunSettings, version: str | None, say: Callable[[str], None]) -> RunSettings:
    """`settings` with the Spark app on PySpark `version` (None: the project's own)."""
    version = version or locked_spark_version()
    return replace(settings, spark_version=version, spark_python=spark_python(version, say))


@dataclass
class Matrix:
    """Results per column: a PySpark version (`label` "PySpark"), a Kafka version ("Kafka"), a
    stack ("") or a checkpoint store ("store")."""

    columns: list[str]  # the PySpark versions, Kafka versions, stacks or stores compared
    results: dict[str, list[ScenarioResult]]
    label: str = "PySpark"
    title: str = "PySpark versions compared"

    def heading(self, column: str) -> str:
        return f"{self.label} {column}" if self.label else column

    @property
    def exit_code(self) -> int:
        every = [r for rs in self.results.values() for r in rs]
        # As a plain run's exit code: a scenario skipped for its stack does not fail it.
        return (
            0
            if any(r.verdict == "passed" for r in every)
            and all(r.verdict in ("passed", "skipped") for r in every)
            else 1
        )

    def rows(self) -> list[MatrixRow]:
        rows = []
        for name in dict.fromkeys(r.name for rs in self.results.values() for r in rs):
            by_version = {
                v: next((r for r in rs if r.name == name), None) for v, rs in self.results.items()
            }
            rows.append(
                MatrixRow(name, "verdict", {v: _verdict_cell(r) for v, r in by_version.items()})
            )
            rows.append(
                MatrixRow(
                    name,
                    "duration",
                    {v: f"{r.duration_sec:.0f} s" if r else _ABSENT for v, r in by_version.items()},
                    {v: r.duration_sec for v, r in by_version.items() if r},
                )
            )
            checks = dict.fromkeys(c.label for r in by_version.values() if r for c in r.checks)
            rows += [
                MatrixRow(name, check, {v: _check_cell(r, check) for v, r in by_version.items()})
                for check in checks
            ]
        return rows

    def markdown(self) -> str:
        head = ["scenario", "check", *(self.heading(v) for v in self.columns), "differs"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in self.rows():
            cells = [row.cells[v].replace("|", "\\|") for v in self.columns]
            lines.append(
                "| "
                + " | ".join([row.scenario, row.check, *cells, "**yes**" if row.differs else ""])
                + " |"
            )
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, object]:
        return {
            "versions": self.columns,
            "exit_code": self.exit_code,
            "rows": [
                {"scenario": r.scenario, "check": r.check, "cells": r.cells, "differs": r.differs}
                for r in self.rows()
            ],
            "results": {v: [r.to_dict() for r in rs] for v, rs in self.results.items()},
        }


def _verdict_cell(result: ScenarioResult | None) -> str:
    if result is None:
        return _ABSENT
    reason = result.error or result.skipped
    return result.verdict.upper() + (f": {reason}" if reason else "")


def _check_cell(result: ScenarioResult | None, name: str) -> str:
    found = next((c for c in result.checks if c.label == name), None) if result else None
    if found is None:
        return _ABSENT
    return f"{'held' if found.held else 'DID NOT HOLD'}: {found.actual}"


def run_matrix(
    versions: Sequence[str],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    report_dir: Path | None,
) -> Matrix:
    """Run `scenarios` on each version in turn; reports per version under report_dir/<version>/."""
    return _run_columns(
        list(versions),
        {v: v for v in versions},
        scenarios,
        narrator,
        report_dir,
        lambda v, folder: on_spark(replace(settings, report_dir=folder), v, narrator.say),
        lambda v: f"PySpark {v}",
        "PySpark",
        "PySpark versions compared",
    )


def run_stack_matrix(
    stacks: Sequence[Stack],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    report_dir: Path | None,
) -> Matrix:
    """Run `scenarios` on each stack in turn; reports per stack under report_dir/<kafka>-<source>/."""
    by_name = {s.name: s for s in stacks}
    return _run_columns(
        list(by_name),
        {s.name: s.folder for s in stacks},
        scenarios,
        narrator,
        report_dir,
        lambda name, folder: by_name[name].applied_to(replace(settings, report_dir=folder)),
        lambda name: name,
        "",
        "Stacks compared",
    )


def run_kafka_matrix(
    versions: Sequence[str],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    report_dir: Path | None,
) -> Matrix:
    """Run `scenarios` on each Apache Kafka version in turn; reports under
    report_dir/kafka-<version>/."""
    return _run_columns(
        list(versions),
        {v: f"kafka-{v}" for v in versions},
        scenarios,
        narrator,
        report_dir,
        lambda v, folder: replace(settings, kafka_version=v, report_dir=folder),
        lambda v: f"Apache Kafka {v}",
        "Kafka",
        "Kafka versions compared",
    )


def run_store_matrix(
    stores: Sequence[str],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    report_dir: Path | None,
) -> Matrix:
    """Run `scenarios` with the checkpoint on each store in turn (local, hdfs, s3); reports
    under report_dir/store-<store>/."""
    return _run_columns(
        list(stores),
        {s: f"store-{s}" for s in stores},
        scenarios,
        narrator,
        report_dir,
        lambda s, folder: replace(settings, checkpoint_store=s, report_dir=folder),
        lambda s: f"the checkpoint on {s}",
        "store",
        "Checkpoint stores compared",
    )


# How the Spark app talks to Spark: PySpark's classic API, or Spark Connect (spark_app --connect).
APIS = ("classic", "connect")


def run_api_matrix(
    apis: Sequence[str],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    report_dir: Path | None,
) -> Matrix:
    """Run `scenarios` with the app's query on each API in turn: Spark Connect's fidelity to
    the classic API, check by check; reports under report_dir/api-<api>/."""
    return _run_columns(
        list(apis),
        {a: f"api-{a}" for a in apis},
        scenarios,
        narrator,
        report_dir,
        lambda a, folder: replace(settings, connect=a == "connect", report_dir=folder),
        lambda a: "Spark Connect" if a == "connect" else "the classic API",
        "API",
        "Classic and Spark Connect compared",
    )


def _run_columns(
    columns: list[str],
    folders: dict[str, str],
    scenarios: Sequence[Scenario],
    narrator: Narrator,
    report_dir: Path | None,
    settings_of: Callable[[str, Path | None], RunSettings],
    said: Callable[[str], str],
    label: str,
    title: str,
) -> Matrix:
    """The scenarios once per column, each column's settings from `settings_of(column, its
    report folder)`; the matrix, written to report_dir when given."""
    results: dict[str, list[ScenarioResult]] = {}
    for column in columns:
        narrator.say(f"matrix: the scenarios on {said(column)}")
        folder = report_dir / folders[column] if report_dir else None
        results[column] = run_scenarios(scenarios, settings_of(column, folder), narrator)
    matrix = Matrix(columns, results, label=label, title=title)
    if report_dir is not None:
        write_matrix(matrix, report_dir, folders)
    return matrix


def write_matrix(matrix: Matrix, report_dir: Path, folders: dict[str, str]) -> None:
    """matrix.md, matrix.json, matrix.html and junit.xml; each column's reports are in
    report_dir/<its folder>/ (matrix.json names them, so a merge of shards finds them)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "matrix.md").write_text(matrix.markdown(), encoding="utf-8")
    written = matrix.to_dict() | {"label": matrix.label, "title": matrix.title, "folders": folders}
    (report_dir / "matrix.json").write_text(
        json.dumps(written, indent=2, default=str) + "\n", encoding="utf-8"
    )
    # Each column's run wrote its own index.html under report_dir/<folder>/: cells link there.
    columns = [Column(folders[v], matrix.heading(v)) for v in dict.fromkeys(matrix.columns)]
    rows = [
        replace(
            row,
            cells={folders[k]: c for k, c in row.cells.items()},
            figures=None
            if row.figures is None
            else {folders[k]: f for k, f in row.figures.items()},
        )
        for row in matrix.rows()
    ]
    write_matrix_page(rows, columns, report_dir, title=matrix.title)
    write_junit([r for rs in matrix.results.values() for r in rs], report_dir / "junit.xml")


def print_matrix(matrix: Matrix, console: Console) -> None:
    """A table on a terminal; off one, the Markdown table (it reads in a CI log as it is)."""
    if not console.is_terminal:
        console.print(matrix.markdown(), markup=False, highlight=False, soft_wrap=True)
        return
    table = Table(title=matrix.title)
    for column in ("scenario", "check", *(matrix.heading(v) for v in matrix.columns)):
        table.add_column(column, overflow="fold")
    for row in matrix.rows():
        style = "bold yellow" if row.differs else ""
        table.add_row(row.scenario, row.check, *(row.cells[v] for v in matrix.columns), style=style)
    console.print(table)
    compared = {"": "stacks", "store": "stores", "API": "APIs"}.get(matrix.label, "versions")
    console.print(f"rows in yellow differ between {compared}")
