"""Verdicts: a table at the end of a run, a JSON file per scenario and one JUnit XML for CI.

A scenario passes when every check held and no step broke. An expected failure (data loss in
short-retention) is a check like any other: it passes when it happens as predicted.

Usage:
    write_reports(results, Path("reports"))
    print_verdicts(results, Console())
    exit_code(results)
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from kafka_app.apache.jars import DEFAULT_VERSION as DEFAULT_KAFKA_VERSION
from scenarios.checker.expectations import Check
from scenarios.checker.verify import ValueRange

__all__ = [
    "ScenarioResult",
    "read_result",
    "exit_code",
    "jsonable",
    "print_verdicts",
    "verdict_lines",
    "verdict_table",
    "write_junit",
    "write_reports",
]

Verdict = Literal["passed", "failed", "error", "skipped"]


@dataclass
class ScenarioResult:
    """What one scenario run found."""

    name: str
    title: str
    checks: list[Check] = field(default_factory=list)
    error: str | None = None
    traceback: str | None = None
    # Why the scenario did not run on this stack (e.g. it needs three Apache Kafka brokers).
    skipped: str | None = None
    duration_sec: float = 0.0
    transcript: list[str] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    # The PySpark the Spark app ran on (`run --spark`), so a regression report says which.
    spark_version: str = ""
    # Which Kafka and which Kafka source the app read with (RunSettings.stack), e.g.
    # "embedded/python": the other axis a comparison of runs can differ on.
    stack: str = ""
    # Apache Kafka's version the scenario's brokers ran ("" for the embedded broker or a Kafka
    # given with --bootstrap-servers): the third axis a regression run can differ on.
    kafka_version: str = ""
    # What the scenario shows, longer than its title (the title is its lesson in one line).
    summary: str = ""
    # The steps, remarks and checks as they were narrated (Narrator.narration).
    narration: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        if self.error is not None:
            return "error"
        if self.skipped is not None:
            return "skipped"
        return "passed" if self.checks and all(c.held for c in self.checks) else "failed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "verdict": self.verdict,
            "spark_version": self.spark_version,
            "stack": self.stack,
            "kafka_version": self.kafka_version,
            "summary": self.summary,
            "duration_sec": round(self.duration_sec, 1),
            "error": self.error,
            "skipped": self.skipped,
            "traceback": self.traceback,
            "checks": [vars(c) | {"detail": c.detail, "label": c.label} for c in self.checks],
            "facts": self.facts,
            "artifacts": self.artifacts,
            "transcript": self.transcript,
            "narration": self.narration,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioResult:
        """A result read back from its `<name>.json` (to_dict's output): what a merge of
        reports written by several runs reads. Facts keep their JSON form."""
        checks = [
            Check(c["name"], bool(c["held"]), c["expected"], c["actual"], c.get("step", ""))
            for c in data.get("checks", [])
        ]
        return cls(
            data["name"],
            data["title"],
            checks=checks,
            error=data.get("error"),
            traceback=data.get("traceback"),
            skipped=data.get("skipped"),
            duration_sec=float(data.get("duration_sec", 0.0)),
            transcript=list(data.get("transcript", [])),
            artifacts=dict(data.get("artifacts", {})),
            facts=dict(data.get("facts", {})),
            spark_version=data.get("spark_version", ""),
            stack=data.get("stack", ""),
            kafka_version=data.get("kafka_version", ""),
            summary=data.get("summary", ""),
            narration=list(data.get("narration", [])),
        )


def read_result(path: Path) -> ScenarioResult:
    """One scenario's result from the `<name>.json` a run wrote."""
    return ScenarioResult.from_dict(json.loads(path.read_text(encoding="utf-8")))


def exit_code(results: Sequence[ScenarioResult]) -> int:
    # A scenario skipped for its stack says so in its line; it does not fail the run (`run all`
    # on the offline stack stays green), but a run that ran nothing is not a pass.
    return (
        0
        if any(r.verdict == "passed" for r in results)
        and all(r.verdict in ("passed", "skipped") for r in results)
        else 1
    )


def print_verdicts(
    results: Sequence[ScenarioResult], console: Console, short: bool = False
) -> None:
    """The full table on a terminal; off one (a CI log, a pipe), short lines that read anywhere.
    `short`: the lines on a terminal too (a guided run: its last answer stays on screen above
    them, where a table of every check pushed it off a laptop's screen)."""
    if console.is_terminal and not short:
        console.print(verdict_table(results))
    else:
        for line in verdict_lines(results):
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def verdict_table(results: Sequence[ScenarioResult]) -> Table:
    table = Table(title="Verdicts")
    for column in ("scenario", "check", "verdict", "expected", "actual"):
        table.add_column(column, overflow="fold")
    colours = {"passed": "green", "failed": "red", "error": "red", "skipped": "yellow"}
    for result in results:
        colour = colours[result.verdict]
        table.add_row(
            f"[bold]{result.name}[/]",
            f"({result.duration_sec:.0f} s{_on_spark(result)})",
            f"[bold {colour}]{result.verdict.upper()}[/]",
            "",
            _short(result.error or result.skipped),
        )
        for c in result.checks:
            mark = "[green]held[/]" if c.held else "[red]did not hold[/]"
            table.add_row("", c.label, mark, c.expected, c.actual)
    return table


def verdict_lines(results: Sequence[ScenarioResult]) -> list[str]:
    """One line per scenario, one per check that did not hold, and a closing count."""
    lines = []
    for result in results:
        held = sum(c.held for c in result.checks)
        lines.append(
            f"{result.verdict.upper():6} {result.name}: {held}/{len(result.checks)} "
            f"checks held ({result.duration_sec:.0f} s{_on_spark(result)})"
        )
        if result.error is not None:
            lines.append(f"    error: {_short(result.error)}")
        if result.skipped is not None:
            lines.append(f"    skipped: {result.skipped}")
        lines.extend(
            f"    did not hold: {c.label}: expected {c.expected}; actual {c.actual}"
            for c in result.checks
            if not c.held
        )
    counts = {
        v: sum(r.verdict == v for r in results) for v in ("passed", "failed", "error", "skipped")
    }
    lines.append(
        f"scenarios: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['error']} errors"
        + (f", {counts['skipped']} skipped" if counts["skipped"] else "")
    )
    return lines


def _on_spark(result: ScenarioResult) -> str:
    # Kafka is named when a run chose another than the pinned one (`--kafka-version`).
    other_kafka = result.kafka_version and result.kafka_version != DEFAULT_KAFKA_VERSION
    return (f", PySpark {result.spark_version}" if result.spark_version else "") + (
        f", Kafka {result.kafka_version}" if other_kafka else ""
    )


def jsonable(value: object) -> object:
    """Facts may hold value ranges and other small dataclasses: write them as plain data."""
    if isinstance(value, ValueRange):
        return [value.first, value.last]
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


def _short(text: str | None, limit: int = 400) -> str:
    """An error as the table shows it; the JSON report keeps it whole."""
    if not text:
        return ""
    return text if len(text) <= limit else text[:limit] + " …"


def write_reports(results: Sequence[ScenarioResult], report_dir: Path) -> list[Path]:
    """One `<name>.json` per scenario and `junit.xml`; returns the paths written."""
    report_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for result in results:
        path = report_dir / f"{result.name}.json"
        path.write_text(
            json.dumps(result.to_dict(), indent=2, default=jsonable) + "\n", encoding="utf-8"
        )
        written.append(path)
    junit = report_dir / "junit.xml"
    write_junit(results, junit)
    written.append(junit)
    return written


def write_junit(results: Sequence[ScenarioResult], path: Path) -> None:
    """One test suite per PySpark version (one in a plain run, one per column of a matrix), one
    test case per check (and one for a scenario that broke)."""
    versions = list(dict.fromkeys(r.spark_version for r in results))
    root = ET.Element("testsuites", name="scenarios")
    for version in versions:
        _junit_suite(root, [r for r in results if r.spark_version == version], version)
    for total in ("tests", "failures", "errors"):  # CI tools read the totals off the root
        root.set(total, str(sum(int(suite.get(total, "0")) for suite in root)))
    root.set("time", f"{sum(r.duration_sec for r in results):.1f}")
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _junit_suite(root: ET.Element, results: Sequence[ScenarioResult], version: str) -> None:
    suite = ET.SubElement(root, "testsuite", name=f"scenarios on PySpark {version}")
    ET.SubElement(ET.SubElement(suite, "properties"), "property", name="pyspark", value=version)
    tests = failures = errors = 0
    for result in results:
        classname = f"scenarios.{result.name}"
        if result.skipped is not None:
            tests += 1
            case = ET.SubElement(suite, "testcase", classname=classname, name="run", time="0")
            ET.SubElement(case, "skipped", message=result.skipped)
        if result.error is not None:
            tests, errors = tests + 1, errors + 1
            case = ET.SubElement(
                suite,
                "testcase",
                classname=classname,
                name="run",
                time=f"{result.duration_sec:.1f}",
            )
            ET.SubElement(case, "error", message=result.error).text = "\n".join(
                [*result.transcript, result.traceback or ""]
            )
        for c in result.checks:
            tests += 1
            case = ET.SubElement(suite, "testcase", classname=classname, name=c.label, time="0")
            if not c.held:
                failures += 1
                ET.SubElement(case, "failure", message=c.detail).text = c.detail
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("time", f"{sum(r.duration_sec for r in results):.1f}")
