"""Reports a CI job and a reader rely on: JSON per scenario, JUnit XML, verdicts, the timeline SVG."""

from __future__ import annotations

import io
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from rich.console import Console

from scenarios.checker.expectations import (
    check,
    count_resets_at,
    duplicated_exactly,
    exactly_once,
    missing_exactly,
    outcome_of_runs,
    within,
)
from scenarios.checker.verify import ValueRange, verify
from scenarios.engine.step import Step
from scenarios.engine.timeline import Event as TimelineEvent
from scenarios.engine.timeline import Sample, Timeline
from scenarios.report.narration import Narrator
from scenarios.report.timeline import render as render_timeline
from scenarios.report.timeline import timeline_svg
from scenarios.report.verdicts import ScenarioResult, exit_code, print_verdicts, write_reports

STAMP = "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: "


def log_of(pairs: list[tuple[int, int]]) -> list[str]:
    return [
        f"{STAMP}{line}\n" for c, v in pairs for line in (f"Count = {c}", f"Experience: {v} -> {v}")
    ]


def results() -> list[ScenarioResult]:
    good = ScenarioResult(
        "short-retention",
        "data loss",
        duration_sec=12.5,
        checks=[check("restart fails", True, "exit code != 0", "exit code 1")],
        facts={"lost_values": ValueRange(6, 9), "resumed_at": 10},
    )
    bad = ScenarioResult(
        "endless-retention", "kills", checks=[check("exactly once", False, "1..10", "1..9")]
    )
    broken = ScenarioResult("checkpoint-reset", "reset", error="WaitTimeout: value 9 never came")
    return [good, bad, broken]


def test_verdicts_and_exit_code() -> None:
    good, bad, broken = results()
    assert (good.verdict, bad.verdict, broken.verdict) == ("passed", "failed", "error")
    assert exit_code([good]) == 0
    assert exit_code([good, bad]) == 1 and exit_code([good, broken]) == 1
    assert exit_code([]) == 1
    assert ScenarioResult("empty", "no checks").verdict == "failed"


def test_report_files_parse(tmp_path: Path) -> None:
    written = write_reports(results(), tmp_path)
    assert sorted(p.name for p in written) == [
        "checkpoint-reset.json",
        "endless-retention.json",
        "junit.xml",
        "short-retention.json",
    ]
    data = json.loads((tmp_path / "short-retention.json").read_text())
    assert data["verdict"] == "passed" and data["checks"][0]["name"] == "restart fails"
    assert data["facts"] == {"lost_values": [6, 9], "resumed_at": 10}
    suite = ET.parse(tmp_path / "junit.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["exactly once"]


def test_verdict_table_names_every_check_on_a_terminal() -> None:
    buffer = io.StringIO()
    print_verdicts(results(), Console(file=buffer, width=160, force_terminal=True))
    text = buffer.getvalue()
    for word in ("short-retention", "PASSED", "FAILED", "ERROR", "restart fails", "did not hold"):
        assert word in text
    assert "\x1b[" in text and "┃" in text


def test_a_guided_run_ends_with_short_lines_so_its_last_answer_stays_on_screen() -> None:
    buffer = io.StringIO()
    print_verdicts(results(), Console(file=buffer, width=100, force_terminal=True), short=True)
    text = buffer.getvalue()
    assert "┃" not in text  # no table of every check
    assert "PASSED short-retention: 1/1 checks held" in text
    assert len(text.splitlines()) <= len(results()) + 3


def test_off_a_terminal_one_line_per_scenario_and_per_failed_check() -> None:
    long_check = check("the count goes on " * 8, False, "1..10 " * 20, "1..9 " * 20)
    bad = ScenarioResult(
        "chaos",
        "kills",
        duration_sec=61.2,
        checks=[check("exactly once", True, "1..10", "1..10"), long_check],
    )
    buffer = io.StringIO()
    print_verdicts([*results(), bad], Console(file=buffer, width=80))
    lines = buffer.getvalue().splitlines()
    assert lines == [
        "PASSED short-retention: 1/1 checks held (12 s)",
        "FAILED endless-retention: 0/1 checks held (0 s)",
        "    did not hold: exactly once: expected 1..10; actual 1..9",
        "ERROR  checkpoint-reset: 0/0 checks held (0 s)",
        "    error: WaitTimeout: value 9 never came",
        "FAILED chaos: 1/2 checks held (61 s)",
        f"    did not hold: {long_check.name}: expected {long_check.expected}; "
        f"actual {long_check.actual}",
        "scenarios: 1 passed, 2 failed, 1 errors",
    ]


def test_expectations_compare_with_the_verifier() -> None:
    # A first run 1..5, then a reset from latest at 9 (6..8 skipped) running to 12.
    report = verify(log_of([(n, n) for n in range(1, 6)] + [(n - 8, n) for n in range(9, 13)]))
    missing, duplicated = outcome_of_runs([ValueRange(1, 5), ValueRange(9, 12)])
    assert missing_exactly(report, missing).held
    assert duplicated_exactly(report, duplicated).held
    assert count_resets_at(report, [9]).held
    assert not count_resets_at(report, []).held
    assert not exactly_once(report, 12).held
    assert not missing_exactly(report, [ValueRange(6, 7)]).held
    assert within("offset", 8, 6, 9).held and not within("offset", 5, 6, 9).held


def test_outcome_of_overlapping_runs_counts_doubles() -> None:
    missing, duplicated = outcome_of_runs([ValueRange(1, 5), ValueRange(9, 12), ValueRange(4, 14)])
    assert missing == ()
    assert duplicated == {4: 2, 5: 2, 9: 2, 10: 2, 11: 2, 12: 2}


def test_the_timeline_is_an_svg_whose_labels_say_what_happened(tmp_path: Path) -> None:
    timeline = Timeline()
    for n in range(20):
        timeline.sample(earliest=max(0, n - 5), latest=n, committed=None if n < 3 else n - 2)
    timeline.app_up()
    timeline.event("kill -9 <pid 12>", "kill")
    timeline.app_down()
    path = render_timeline(timeline, tmp_path / "t.svg", "test & more")
    svg = ET.parse(path).getroot()  # well-formed XML: the labels are escaped
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert "test & more" in texts and "kill -9 <pid 12>" in texts
    # Each line is named at its end with its last value, so colour is not the only sign.
    assert {"latest 19", "earliest 14", "committed 17"} <= set(texts)
    assert "Spark app up" in texts and "retention deleted" in texts  # the legend
    assert len(timeline.retention_deletions()) == 14


def test_the_live_picture_shows_only_its_last_seconds() -> None:
    timeline = Timeline(started=time.monotonic() - 100)
    timeline.samples = [Sample(at, 0, int(at), int(at)) for at in range(0, 100, 5)]
    timeline.events = [
        TimelineEvent(10.0, "early kill", "kill"),
        TimelineEvent(90.0, "late", "stop"),
    ]
    whole = timeline_svg(timeline, "t")
    recent = timeline_svg(timeline, "t", last_sec=30, font=20, legend=False)
    assert "early kill" in whole and "early kill" not in recent and "late" in recent
    assert "the last 30 s" in recent and "Spark app up" not in recent


def test_narration_plain_lines_and_guided_pause_on_a_terminal_only() -> None:
    asked: list[str] = []
    for rich in (False, True):
        buffer = io.StringIO()
        narrator = Narrator(
            guided=True, stream=buffer, rich=rich, ask=lambda prompt: asked.append(prompt) or ""
        )
        narrator.begin("demo", "what it is about")
        narrator.step(Step("Kill it", happens="kill -9", why="Spark replays batch N"))
        narrator.check("exactly once", True, "fine")
        narrator.end_step()
        text = buffer.getvalue()
        if not rich:
            assert "-- Step 1: Kill it" in text and "Why: Spark replays batch N" in text
            assert "PASS exactly once" in text
            assert "\x1b[" not in text  # no colour codes when not on a terminal
            assert asked == []  # off a terminal nothing waits
    assert len(asked) == 1 and "Enter" in asked[0]


def test_event_labels_close_in_time_go_to_separate_lanes() -> None:
    from scenarios.report.timeline import label_lanes

    # "Kafka up" and "start 1" a second apart, then a crash, its exit and the restart together.
    lanes = label_lanes([0.5, 1.5, 24.0, 92.8, 93.5, 94.0, 112.0], gap=2.0)
    assert lanes == [0, 1, 0, 0, 1, 2, 0]


def test_reports_name_the_pyspark_each_scenario_ran_on(tmp_path: Path) -> None:
    """A matrix run holds results of several PySpark versions: JUnit gets a suite per version,
    the lines and the JSON say which version each result is from."""
    old = ScenarioResult(
        "endless-retention",
        "kills",
        spark_version="4.0.5",
        duration_sec=3,
        checks=[check("exactly once", True, "1..10", "1..10")],
    )
    new = ScenarioResult(
        "endless-retention",
        "kills",
        spark_version="4.3.0",
        duration_sec=4,
        checks=[check("exactly once", False, "1..10", "1..9")],
    )
    write_reports([old, new], tmp_path)
    root = ET.parse(tmp_path / "junit.xml").getroot()
    suites = {s.get("name"): s.get("failures") for s in root.iter("testsuite")}
    assert suites == {"scenarios on PySpark 4.0.5": "0", "scenarios on PySpark 4.3.0": "1"}
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    buffer = io.StringIO()
    print_verdicts([old, new], Console(file=buffer, width=80))
    assert (
        buffer.getvalue().splitlines()[0]
        == "PASSED endless-retention: 1/1 checks held (3 s, PySpark 4.0.5)"
    )
    assert new.to_dict()["spark_version"] == "4.3.0"
