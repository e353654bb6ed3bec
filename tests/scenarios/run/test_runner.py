"""The runner always gives a verdict: whatever a scenario raises, the rest still run."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from launch.group import ProcessGroup
from launch.process import CONSOLE_SUFFIX
from scenarios.checker.expectations import check
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import OFFLINE
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.registry import all_scenarios
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import exit_code
from scenarios.run.runner import run_scenarios
from spark_app.errors import CheckpointError


def scenario(name: str, run) -> Scenario:
    return Scenario(name=name, title=f"{name} title", summary="", origin="test", run=run)


def assertion_in_a_helper(stage: Stage) -> None:
    with stage.step(Step("start", happens="a check, then a failure")):
        stage.expect(check("a check before the failure", True, "x", "x"))
    assert 1 + 1 == 3, "the helper's own assertion\nwith a second line"


def damaged_checkpoint(stage: Stage) -> None:
    raise CheckpointError("offsets/3 does not start with a version line")


def fine(stage: Stage) -> None:
    with stage.step(Step("end", happens="a check")):
        stage.expect(check("it held", True, "yes", "yes"))


def test_any_exception_is_an_error_verdict_and_the_rest_still_run(tmp_path: Path) -> None:
    chosen = [
        scenario("asserts", assertion_in_a_helper),
        scenario("damaged", damaged_checkpoint),
        scenario("fine", fine),
    ]
    settings = RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path)
    results = run_scenarios(chosen, settings, Narrator(stream=io.StringIO()))
    assert [r.verdict for r in results] == ["error", "error", "passed"]
    assert results[0].error == "AssertionError: the helper's own assertion"
    assert results[1].error.startswith("CheckpointError: CHECKPOINT_UNUSABLE: offsets/3")
    assert [c.label for c in results[0].checks] == ["start › a check before the failure"]
    assert exit_code(results) == 1
    data = json.loads((tmp_path / "asserts.json").read_text())
    assert "assert 1 + 1 == 3" in data["traceback"] and "with a second line" in data["traceback"]
    suite = ET.parse(tmp_path / "junit.xml").getroot()
    errored = [c.get("classname") for c in suite.iter("testcase") if c.find("error") is not None]
    assert errored == ["scenarios.asserts", "scenarios.damaged"]


def test_ctrl_c_still_stops_the_run(tmp_path: Path) -> None:
    def interrupted(stage: Stage) -> None:
        raise KeyboardInterrupt

    ran: list[str] = []
    chosen = [
        scenario("interrupted", interrupted),
        scenario("after", lambda stage: ran.append("after")),
    ]
    with pytest.raises(KeyboardInterrupt):
        run_scenarios(
            chosen, RunSettings(timings=Timings.fast(), fast=True), Narrator(stream=io.StringIO())
        )
    assert ran == []


def test_a_scenario_needing_more_brokers_than_the_stack_has_is_skipped(tmp_path: Path) -> None:
    """Skipped before its stage starts anything, with the reason in its line and in JUnit; it
    does not fail a run in which the others passed."""
    ran: list[str] = []
    cluster = Scenario(
        name="cluster",
        title="t",
        summary="",
        origin="test",
        run=lambda stage: ran.append("cluster"),
        kafka_brokers=3,
    )
    settings = OFFLINE.applied_to(
        RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path)
    )
    results = run_scenarios(
        [cluster, scenario("fine", fine)], settings, Narrator(stream=io.StringIO())
    )
    assert ran == [] and [r.verdict for r in results] == ["skipped", "passed"]
    assert "the embedded broker is one node" in results[0].skipped
    assert exit_code(results) == 0 and exit_code(results[:1]) == 1
    skipped = [
        c
        for c in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
        if c.find("skipped") is not None
    ]
    assert [c.get("classname") for c in skipped] == ["scenarios.cluster"]


def _multi_broker() -> list[Scenario]:
    return [s for s in all_scenarios() if s.kafka_brokers > 1]


def test_the_catalogs_multi_broker_scenarios_are_the_ones_that_kill_or_roll_brokers() -> None:
    assert {s.name for s in _multi_broker()} == {"broker-failover", "kafka-upgrade"}


@pytest.mark.parametrize("chosen", _multi_broker(), ids=lambda s: s.name)
def test_on_a_one_broker_stack_a_catalog_scenario_is_skipped_and_says_why(
    chosen: Scenario, tmp_path: Path
) -> None:
    """What a learner on --offline sees: the reason and the stack to choose, nothing started."""
    settings = OFFLINE.applied_to(
        RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path)
    )
    out = io.StringIO()
    [result] = run_scenarios([chosen], settings, Narrator(stream=out, rich=False))
    assert result.verdict == "skipped"
    assert "needs 3 Kafka brokers" in result.skipped and "apache/connector" in result.skipped
    assert "SKIPPED" in out.getvalue() and not (tmp_path / chosen.name).exists()
    assert json.loads((tmp_path / f"{chosen.name}.json").read_text())["verdict"] == "skipped"
    assert exit_code([result]) == 1  # a run that ran nothing did not pass


def _folder_seen(seen: list[Path], then=None):
    def run(stage: Stage) -> None:
        seen.append(stage.folders.root)
        assert stage.folders.root.exists()
        if then is not None:
            then()

    return run


def test_a_run_without_report_names_its_folder_and_leaves_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    """The learner is told where the consoles are; the folder is gone when the run ends."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    seen: list[Path] = []
    out = io.StringIO()
    run_scenarios(
        [scenario("looks", _folder_seen(seen))],
        RunSettings(timings=Timings.fast(), fast=True),
        Narrator(stream=out, rich=False),
    )
    [root] = seen
    assert f"run folder {root.parent} (removed at the end" in out.getvalue()
    # The pattern the line offers is the one a process's console is written under.
    assert f"processes/*{CONSOLE_SUFFIX}`" in out.getvalue()
    group = ProcessGroup(tmp_path / "p")
    console = group.start("echo", ["true"]).output_path
    group.stop()
    assert console.name == f"echo{CONSOLE_SUFFIX}"
    assert not root.parent.exists() and [p.name for p in tmp_path.iterdir()] == ["p"]


def test_ctrl_c_removes_the_run_folder_too(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    seen: list[Path] = []
    with pytest.raises(KeyboardInterrupt):
        run_scenarios(
            [scenario("interrupted", _folder_seen(seen, ctrl_c))],
            RunSettings(timings=Timings.fast(), fast=True),
            Narrator(stream=io.StringIO()),
        )
    assert seen and list(tmp_path.iterdir()) == []


def test_a_report_folder_is_kept_and_said_so(tmp_path: Path) -> None:
    out = io.StringIO()
    run_scenarios(
        [scenario("fine", fine)],
        RunSettings(timings=Timings.fast(), fast=True, report_dir=tmp_path / "r"),
        Narrator(stream=out, rich=False),
    )
    assert f"run folder {tmp_path / 'r'} (kept)" in out.getvalue()
    assert (tmp_path / "r" / "fine.json").exists()
