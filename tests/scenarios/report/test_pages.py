"""The HTML pages, rendered from ScenarioResult objects: what a reader of index.html and
matrix.html sees, in which order, and that no value can break the page.

tests/scenarios/report/test_pages_browser_e2e.py opens them in a real Chromium.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from scenarios.checker.expectations import check
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.engine.timeline import Timeline
from scenarios.report.narration import Narrator
from scenarios.report.pages import Column, render_index, render_matrix, write_index
from scenarios.report.timeline import render as render_timeline
from scenarios.report.verdicts import ScenarioResult, write_reports
from scenarios.run.matrix import Matrix
from scenarios.run.runner import run_scenarios
from tests.scenarios.report.html_tree import Element, parse

TRACEBACK = 'Traceback (most recent call last):\n  File "stage.py", line 9\nWaitTimeout: value 9'


def results(tmp_path: Path) -> list[ScenarioResult]:
    """A passed, a failed and an errored scenario, with a real timeline picture for the first."""
    timeline = Timeline()
    for n in range(10):
        timeline.sample(earliest=0, latest=n, committed=n - 1)
    picture = render_timeline(timeline, tmp_path / "short-retention.svg", "short-retention")
    good = ScenarioResult(
        "short-retention",
        "retention deletes what the checkpoint points at: data loss",
        checks=[check("restart fails", True, "exit code != 0", "exit code 1")],
        duration_sec=12.4,
        spark_version="4.0.5",
        stack="embedded/python",
        summary="Kafka deletes a segment the checkpoint still needs.",
        facts={"lost_values": [6, 7, 8, 9, 15], "messages_sent": 40, "run_dir": "x"},
        artifacts={"timeline": str(picture)},
    )
    bad = ScenarioResult(
        "endless-retention",
        "kills: nothing lost",
        duration_sec=70,
        spark_version="4.0.5",
        stack="embedded/python",
        checks=[
            check("first held", True, "a", "a"),
            check("exactly once", False, "1..10", "1..9"),
            check("last held", True, "b", "b"),
            check("count goes on", False, "no break", "<b>break</b> & more"),
        ],
    )
    broken = ScenarioResult(
        "checkpoint-reset",
        "reset",
        error="WaitTimeout: value 9 never came",
        traceback=TRACEBACK,
        stack="external/spark-kafka",
    )
    return [good, bad, broken]


def page_of(tmp_path: Path) -> Element:
    chosen = results(tmp_path)
    write_reports(chosen, tmp_path)
    return parse(render_index(chosen, tmp_path))


def section(page: Element, name: str) -> Element:
    return page.by_id(f"scenario-{name}")


def test_the_verdict_table_comes_first_and_names_what_failed(tmp_path: Path) -> None:
    page = page_of(tmp_path)
    body = page.find("body")
    first = next(c for c in body.find_all_elements() if c.tag in ("table", "section"))
    assert first.attrs.get("id") == "verdicts"
    rows = [[td.text() for td in tr.find_all("td")] for tr in first.find("tbody").find_all("tr")]
    assert [r[1:] for r in rows] == [
        ["✔ PASSED", "1/1", "12 s", "4.0.5", "embedded/python"],
        ["✘ FAILED", "2/4", "70 s", "4.0.5", "embedded/python"],
        ["⚠ ERROR", "0/0", "0 s", "—", "external/spark-kafka"],
    ]
    # The first screen says what failed, without opening a section.
    assert rows[1][0] == (
        "endless-retention ✘ did not hold: exactly once ✘ did not hold: count goes on"
    )
    assert rows[2][0] == "checkpoint-reset ⚠ WaitTimeout: value 9 never came"


def test_failed_checks_come_first_marked_in_words(tmp_path: Path) -> None:
    checks = section(page_of(tmp_path), "endless-retention").find("table", cls="checks")
    rows = checks.find("tbody").find_all("tr")
    assert [r.find("td").text() for r in rows] == [
        "exactly once",
        "count goes on",
        "first held",
        "last held",
    ]
    assert [r.classes for r in rows] == [["failed"], ["failed"], ["held"], ["held"]]
    assert [td.text() for td in rows[0].find_all("td")] == [
        "exactly once",
        "✘ DID NOT HOLD",
        "1..10",
        "1..9",
    ]


def test_values_are_escaped_not_markup(tmp_path: Path) -> None:
    chosen = results(tmp_path)
    html = render_index(chosen, tmp_path)
    assert "&lt;b&gt;break&lt;/b&gt; &amp; more" in html and "<b>break</b>" not in html
    actual = parse(html).by_id("scenario-endless-retention").find_all("td", cls="actual")[1]
    assert actual.text() == "<b>break</b> & more" and not actual.find_all("b")


def test_an_error_shows_its_cause_and_folds_its_traceback(tmp_path: Path) -> None:
    broken = section(page_of(tmp_path), "checkpoint-reset")
    box = broken.find("div", cls="error-box")
    assert box.find("p").text() == "⚠ The scenario broke: WaitTimeout: value 9 never came"
    folded = box.find("details", cls="traceback")
    assert "open" not in folded.attrs
    assert folded.find("summary").text() == "Traceback"
    assert folded.find("pre").text() == " ".join(TRACEBACK.split())
    assert broken.find("p", cls="lesson").text() == "reset"


def test_timeline_embedded_facts_as_ranges_and_links_that_exist(tmp_path: Path) -> None:
    good = section(page_of(tmp_path), "short-retention")
    img = good.find("img")
    prefix = "data:image/svg+xml;base64,"
    assert img.attrs["src"].startswith(prefix)
    embedded = base64.b64decode(img.attrs["src"][len(prefix) :]).decode()
    assert embedded == (tmp_path / "short-retention.svg").read_text()  # the file it links
    facts = dict(
        zip([dt.text() for dt in good.find_all("dt")], [dd.text() for dd in good.find_all("dd")])
    )
    assert facts == {"lost values": "6..9, 15 (5 values)", "messages sent": "40"}
    links = {a.text(): a.attrs["href"] for a in good.find("ul", cls="links").find_all("a")}
    assert links == {"JSON report": "short-retention.json"}
    assert good.find("figcaption").find("a").attrs["href"] == "short-retention.svg"


def test_narration_steps_with_their_sections_and_one_line_per_wait() -> None:
    narrator = Narrator(stream=io.StringIO(), rich=False)
    narrator.begin("demo", "what it is about")
    narrator.say("Kafka at 127.0.0.1:1")
    narrator.step(
        Step(
            "Kill it",
            happens="kill -9",
            watch="the count",
            why="replay",
            production="alert",
            question="which value comes first?",
            answer="5",
        )
    )
    for seconds in (5, 10, 15):
        narrator.waiting("value 6 in the output log", seconds)
    narrator.check("exactly once", False, "expected 1..6; got 1..5")
    result = ScenarioResult("demo", "a title", narration=list(narrator.narration))
    steps = (
        parse(render_index([result], Path(".")))
        .find("ol", cls="narration")
        .find_all("li", cls="step")
    )
    assert [s.find("span", cls="step-title").text() for s in steps] == [
        "Before the first step",
        "Step 1: Kill it",
    ]
    assert [dt.text() for dt in steps[1].find_all("dt")] == [
        "Question",
        "What happens",
        "Watch",
        "Answer",
        "Why",
        "In production",
    ]
    answer = steps[1].find("details", cls="answer")  # folded, so a reader can predict first
    assert answer.find("summary").text() == "show the answer" and answer.text().endswith("5")
    remarks = [
        li.text().split(" ", 2)[2] for li in steps[1].find("ul", cls="remarks").find_all("li")
    ]
    assert remarks == [
        "still waiting for value 6 in the output log (15 s)",
        "✘ FAIL exactly once: expected 1..6; got 1..5",
    ]


def test_a_run_with_a_report_folder_writes_index_html(tmp_path: Path) -> None:
    """Through the real runner: the page, the JSON's stack and the narration of each step."""

    def steps(stage: Stage) -> None:
        with stage.step(
            Step(
                "Do the thing",
                happens="it happens",
                why="because",
                question="will it hold?",
                answer="yes, it holds",
            )
        ):
            stage.expect(check("it held", True, "yes", "yes"))  # the step's, not named here

    def breaks(stage: Stage) -> None:
        raise RuntimeError("the <broker> fell over")

    chosen = [
        Scenario("fine", "fine title", "what fine shows", "test", steps),
        Scenario("breaks", "breaks title", "", "test", breaks),
    ]
    settings = RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path)
    run_scenarios(chosen, settings, Narrator(stream=io.StringIO()))
    data = json.loads((tmp_path / "fine.json").read_text())
    assert data["stack"] == "apache/connector" and data["summary"] == "what fine shows"
    assert [e["kind"] for e in data["narration"]] == ["step", "check"]
    sections = dict(map(tuple, data["narration"][0]["sections"]))
    assert (sections["Question"], sections["Answer"]) == ("will it hold?", "yes, it holds")
    assert [(c["step"], c["name"]) for c in data["checks"]] == [("Do the thing", "it held")]
    page = parse((tmp_path / "index.html").read_text())
    assert [td.text() for td in page.find_all("td", cls="stack")] == ["apache/connector"] * 2
    broke = page.by_id("scenario-breaks")
    assert "RuntimeError: the <broker> fell over" in broke.find("div", cls="error-box").text()
    assert 'raise RuntimeError("the <broker> fell over")' in broke.find("pre").text()
    hrefs = [
        a.attrs["href"] for a in page.by_id("scenario-fine").find("ul", cls="links").find_all("a")
    ]
    assert "fine.json" in hrefs and all((tmp_path / h).is_file() for h in hrefs)


def test_stack_names_the_kafka_and_the_source() -> None:
    assert RunSettings().stack == "apache/connector"
    assert RunSettings(kafka="embedded", source="python").stack == "embedded/python"
    assert (
        RunSettings(bootstrap_servers="k:9092", source="spark-kafka").stack == "external/connector"
    )
    assert RunSettings(kafka="apache", source="spark-kafka").stack == "apache/connector"


def test_write_index_replaces_the_page_whole(tmp_path: Path) -> None:
    first = write_index(results(tmp_path)[:1], tmp_path)
    second = write_index(results(tmp_path), tmp_path)
    assert first == second == tmp_path / "index.html"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("index")] == ["index.html"]
    assert len(parse(second.read_text()).find_all("section", cls="scenario")) == 3


def matrix() -> Matrix:
    def run(version: str, actual: str, held: bool) -> ScenarioResult:
        return ScenarioResult(
            "endless-retention",
            "kills",
            spark_version=version,
            duration_sec=60,
            checks=[
                check("exactly once", True, "1..n", "messages seen 4"),
                check("the error", held, "a condition", actual),
            ],
        )

    return Matrix(
        ["4.0.5", "4.3.0"],
        {"4.0.5": [run("4.0.5", "OLD_NAME", True)], "4.3.0": [run("4.3.0", "NEW <NAME>", False)]},
    )


def test_matrix_rows_per_check_differences_marked_cells_link_to_the_run() -> None:
    columns = [Column("4.0.5", "PySpark 4.0.5"), Column("4.3.0", "PySpark 4.3.0")]
    page = parse(render_matrix(matrix().rows(), columns, "PySpark versions compared"))
    table = page.by_id("matrix")
    assert [th.text() for th in table.find("thead").find_all("th")] == [
        "scenario",
        "check",
        "PySpark 4.0.5",
        "PySpark 4.3.0",
        "differs",
    ]
    rows = {tr.find("td", cls="check").text(): tr for tr in table.find("tbody").find_all("tr")}
    assert list(rows) == ["verdict", "duration", "exactly once", "the error"]
    assert rows["the error"].classes == ["differs"] and rows["exactly once"].classes == ["same"]
    assert rows["the error"].find("td", cls="differs-word").text() == "≠ yes"
    cells = rows["the error"].find_all("td")[2:4]
    assert [c.text() for c in cells] == ["✔ held: OLD_NAME", "✘ DID NOT HOLD: NEW <NAME>"]
    assert [c.find("a").attrs["href"] for c in cells] == [
        "4.0.5/index.html#scenario-endless-retention",
        "4.3.0/index.html#scenario-endless-retention",
    ]
