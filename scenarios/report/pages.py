"""The HTML pages of a report: `index.html` for a run, `matrix.html` for a comparison of runs.

Each page is one self-contained file (the styles inline, the timeline pictures embedded as data
URIs), so a trainer can project it offline and a CI job can publish it alone; links to the
scenarios' JSON and logs are relative and resolve when the report folder is published whole.
Jinja2 renders the templates in `templates/`, escaping every value (checks and tracebacks hold
`<`, `>` and `&`). The pages are built from plain views (`scenario_view`), so they can be
tested on ScenarioResult objects without a run.

Usage:
    write_index(results, Path("reports"))          # reports/index.html
    write_matrix_page(matrix.rows(), [Column("4.0.5", "PySpark 4.0.5")], Path("reports"))
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from scenarios.checker.verify import ranges_of
from scenarios.report.matrix_row import MatrixRow
from scenarios.report.narration import WAITING
from scenarios.report.verdicts import ScenarioResult, jsonable

__all__ = [
    "Column",
    "anchor",
    "render_index",
    "render_matrix",
    "scenario_view",
    "write_index",
    "write_matrix_page",
]

TEMPLATES = Path(__file__).parent / "templates"

# Facts the timeline picture or the links already show.
_SHOWN_ELSEWHERE = {"timeline", "run_dir"}
# Folders of a scenario's run folder whose files are logs worth a link.
_LOG_FOLDERS = ("log", "processes")
# A fact longer than this is folded, so a list of 200 values does not push the checks away.
_LONG_FACT = 160


@dataclass(frozen=True)
class Column:
    """One column of a comparison: `key` names its cells in MatrixRow.cells and the folder (under
    the matrix's report folder) that holds its run's index.html; `label` heads the column."""

    key: str
    label: str

    @property
    def index_href(self) -> str:
        return f"{quote(self.key)}/index.html"


def anchor(scenario: str) -> str:
    """The id of a scenario's section in index.html, which the matrix's cells link to."""
    return f"scenario-{scenario}"


def write_index(results: Sequence[ScenarioResult], report_dir: Path) -> Path:
    """Write `report_dir/index.html` for `results` (their JSON is expected beside it)."""
    path = report_dir / "index.html"
    _write_atomically(path, render_index(results, report_dir))
    return path


def render_index(results: Sequence[ScenarioResult], report_dir: Path) -> str:
    """The run's page; links are relative to `report_dir`, where index.html goes."""
    views = [scenario_view(r, report_dir) for r in results]
    counts = {
        v: sum(r.verdict == v for r in results) for v in ("passed", "failed", "error", "skipped")
    }
    return _template("index.html").render(scenarios=views, counts=counts, generated=_now())


def write_matrix_page(
    rows: Sequence[MatrixRow],
    columns: Sequence[Column],
    report_dir: Path,
    title: str = "Runs compared",
) -> Path:
    """Write `report_dir/matrix.html`: a row per check, a column per run (version or stack)."""
    path = report_dir / "matrix.html"
    _write_atomically(path, render_matrix(rows, columns, title))
    return path


def render_matrix(
    rows: Sequence[MatrixRow], columns: Sequence[Column], title: str = "Runs compared"
) -> str:
    view_rows = [
        {
            "scenario": row.scenario,
            "check": row.check,
            "differs": row.differs,
            "href_anchor": anchor(row.scenario),
            # The name once per scenario, as a reader scans a printed table.
            "first_of_scenario": i == 0 or rows[i - 1].scenario != row.scenario,
            "cells": [_cell_view(row.cells.get(c.key, "—")) for c in columns],
        }
        for i, row in enumerate(rows)
    ]
    return _template("matrix.html").render(
        title=title,
        columns=columns,
        rows=view_rows,
        generated=_now(),
        differing=sum(r["differs"] for r in view_rows),
    )


def scenario_view(result: ScenarioResult, report_dir: Path) -> dict[str, Any]:
    """What the page shows of one scenario, with every path made relative to `report_dir`."""
    checks = sorted(result.checks, key=lambda c: c.held)  # stable: failed first, else as run
    seconds = round(result.duration_sec, 1)  # as the JSON has it, so the two read the same
    return {
        "name": result.name,
        "anchor": anchor(result.name),
        "lesson": result.title,
        "summary": result.summary,
        "verdict": result.verdict,
        "duration": f"{seconds:.0f} s",
        "duration_sec": seconds,
        "spark_version": result.spark_version or "—",
        "stack": result.stack or "—",
        "held": sum(c.held for c in result.checks),
        "total": len(result.checks),
        "checks": checks,
        "failed_checks": [c for c in checks if not c.held],
        "error": result.error,
        "traceback": result.traceback,
        "skipped": result.skipped,
        "steps": _steps(result.narration or _narration_of(result.transcript)),
        "facts": _facts(result.facts),
        "timeline": _picture(result.artifacts.get("timeline"), report_dir),
        "links": _links(result, report_dir),
    }


def _cell_view(text: str) -> dict[str, str]:
    """A matrix cell's text with the outcome it starts with, for its mark and colour."""
    outcome = (
        "failed"
        if text.startswith(("DID NOT HOLD", "FAILED"))
        else "error"
        if text.startswith("ERROR")
        else "skipped"
        if text.startswith("SKIPPED")
        else "passed"
        if text.startswith(("held", "PASSED"))
        else "absent"
        if text == "—"
        else ""
    )
    return {"text": text, "outcome": outcome}


def _steps(narration: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The narration as steps, each with the remarks and checks said until the next one."""
    steps: list[dict[str, Any]] = []
    for entry in narration:
        if entry["kind"] == "step":
            steps.append(
                {"title": entry["title"], "sections": entry.get("sections", []), "remarks": []}
            )
            continue
        if not steps:  # said before the first step: Kafka's address, an early error
            steps.append({"title": "Before the first step", "sections": [], "remarks": []})
        remarks = steps[-1]["remarks"]
        if remarks and _same_wait(remarks[-1], entry):
            remarks[-1] = entry  # a wait's progress every 5 s: its last word says how long
        else:
            remarks.append(entry)
    return steps


def _same_wait(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Two progress remarks of one wait ("still waiting for value 6 … (5 s)", "(10 s)")."""

    def subject(entry: dict[str, Any]) -> str | None:
        text = entry.get("text", "") if entry["kind"] == "say" else ""
        return text.rsplit(" (", 1)[0] if text.startswith(WAITING) else None

    return subject(before) is not None and subject(before) == subject(after)


def _narration_of(transcript: Sequence[str]) -> list[dict[str, Any]]:
    """A result made without a Narrator's record (built by hand) has only transcript lines."""
    return [
        {"kind": "step", "title": line, "sections": []}
        if line.startswith("Step ")
        else {"kind": "say", "text": line.strip(), "at": None}
        for line in transcript
        if not line.startswith("== ")
    ]


def _facts(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Label and text per fact, as plain data the way the JSON report has them."""
    plain = json.loads(json.dumps(facts, default=jsonable))
    shown = []
    for key, value in plain.items():
        if key in _SHOWN_ELSEWHERE:
            continue
        text = _fact_text(value)
        shown.append(
            {
                "key": key,
                "label": key.replace("_", " "),
                "text": text,
                "long": len(text) > _LONG_FACT,
            }
        )
    return shown


def _fact_text(value: object) -> str:
    """Lists of values read as ranges (1..165, 370..406): the way the checks state them."""
    if isinstance(value, list) and len(value) > 2 and all(type(v) is int for v in value):
        ranges = ", ".join(str(r) for r in ranges_of(value))  # type: ignore[arg-type]
        return f"{ranges} ({len(set(value))} values)"  # type: ignore[arg-type]
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(", ", ": "))


def _picture(picture: str | None, report_dir: Path) -> dict[str, str] | None:
    """The timeline's SVG (scenarios/report/timeline.py) embedded as a data URI, so the page
    stands alone, and a link to the file."""
    if not picture or not Path(picture).is_file():
        return None
    data = base64.b64encode(Path(picture).read_bytes()).decode("ascii")
    return {
        "src": f"data:image/svg+xml;base64,{data}",
        "href": _relative(Path(picture), report_dir),
    }


def _links(result: ScenarioResult, report_dir: Path) -> list[dict[str, str]]:
    """The scenario's JSON and every log its run left, for those files that exist."""
    candidates = [("JSON report", report_dir / f"{result.name}.json")]
    run_dir = result.artifacts.get("run_dir")
    if run_dir:
        for folder in _LOG_FOLDERS:
            candidates += [(f"{folder}/{p.name}", p) for p in _files_in(Path(run_dir) / folder)]
    return [
        {"label": label, "href": _relative(path, report_dir)}
        for label, path in candidates
        if path.is_file()
    ]


def _files_in(folder: Path) -> Iterable[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def _relative(path: Path, report_dir: Path) -> str:
    """A URL relative to index.html, so the report folder can move or be published whole."""
    relative = os.path.relpath(path.resolve(), report_dir.resolve())
    return quote(Path(relative).as_posix())


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


@cache
def _environment() -> Environment:
    # Autoescape on for every template: check details and tracebacks are arbitrary text.
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["marks"] = {
        "passed": "✔",
        "failed": "✘",
        "error": "⚠",
        "skipped": "–",
        "absent": "–",
        "": "",
    }
    return env


def _template(name: str) -> Any:
    return _environment().get_template(name)


def _write_atomically(path: Path, text: str) -> None:
    """Written beside and renamed into place: a browser reloading mid-run sees a whole page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
