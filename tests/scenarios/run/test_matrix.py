"""The version matrix: a row per check, a column per PySpark, and what differs marked.

Runs real (tiny) scenarios through the real runner on the locked PySpark under two names, so
no Spark or download is needed; tests/scenarios/catalog/test_spark_versions_e2e.py runs real versions.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.cli import run_cli
from scenarios.engine import spark_envs
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings
from scenarios.engine.spark_envs import (
    SparkEnvError,
    locked_spark_version,
    pyarrow_requirement,
    spark_python,
)
from scenarios.engine.stacks import OFFLINE
from scenarios.engine.step import Step
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import ScenarioResult, verdict_lines
from scenarios.run.matrix import (
    Matrix,
    run_api_matrix,
    run_kafka_matrix,
    run_matrix,
    run_store_matrix,
)
from scenarios.run.runner import kafka_version_of


def result(version: str, actual: str, held: bool = True, seconds: float = 60) -> ScenarioResult:
    return ScenarioResult(
        "endless-retention",
        "kills",
        spark_version=version,
        duration_sec=seconds,
        checks=[
            check("exactly once", True, "1..n", "messages seen 4"),
            check("the error", held, "a condition", actual),
        ],
    )


def test_a_renamed_condition_differs_a_different_count_does_not() -> None:
    matrix = Matrix(
        ["4.0.5", "4.3.0"],
        {
            "4.0.5": [result("4.0.5", "KAFKA_DATA_LOSS.OLD_NAME")],
            "4.3.0": [result("4.3.0", "KAFKA_DATA_LOSS.NEW_NAME")],
        },
    )
    rows = {row.check: row for row in matrix.rows()}
    assert not rows["exactly once"].differs and not rows["verdict"].differs
    assert rows["the error"].differs
    assert rows["the error"].cells == {
        "4.0.5": "held: KAFKA_DATA_LOSS.OLD_NAME",
        "4.3.0": "held: KAFKA_DATA_LOSS.NEW_NAME",
    }
    assert (
        "| endless-retention | the error | held: KAFKA_DATA_LOSS.OLD_NAME | "
        "held: KAFKA_DATA_LOSS.NEW_NAME | **yes** |" in matrix.markdown()
    )
    assert matrix.exit_code == 0


def test_an_outcome_that_fails_on_one_version_fails_the_matrix() -> None:
    matrix = Matrix(
        ["4.0.5", "4.3.0"],
        {
            "4.0.5": [result("4.0.5", "x", held=False, seconds=200)],
            "4.3.0": [result("4.3.0", "x", seconds=60)],
        },
    )
    rows = {row.check: row for row in matrix.rows()}
    assert rows["verdict"].cells == {"4.0.5": "FAILED", "4.3.0": "PASSED"}
    assert rows["the error"].differs and rows["duration"].differs  # 200 s against 60 s
    assert matrix.exit_code == 1


def test_run_matrix_writes_markdown_json_and_a_junit_suite_per_version(tmp_path: Path) -> None:
    def counts(stage) -> None:
        with stage.step(Step("end", happens="a check")):
            stage.expect(check("held", True, "yes", f"on {stage.settings.spark_version}"))

    chosen = [Scenario(name="tiny", title="tiny", summary="", origin="test", run=counts)]
    locked = locked_spark_version()
    matrix = run_matrix([locked, locked], chosen, RunSettings(), Narrator(rich=False), tmp_path)
    assert matrix.exit_code == 0
    assert f"| held: on {locked} |" in (tmp_path / "matrix.md").read_text()
    assert json.loads((tmp_path / "matrix.json").read_text())["versions"] == [locked, locked]
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert [s.get("name") for s in root.iter("testsuite")] == [f"scenarios on PySpark {locked}"]
    assert (tmp_path / locked / "tiny.json").is_file()
    # The page compares the runs; each column links to that version's own page.
    assert f'href="{locked}/index.html#scenario-tiny"' in (tmp_path / "matrix.html").read_text()
    assert (tmp_path / locked / "index.html").is_file()


def test_environments_pin_the_pyarrow_each_line_works_with() -> None:
    assert pyarrow_requirement("4.0.5") == pyarrow_requirement("4.1.4") == "pyarrow>=15,<19"
    assert pyarrow_requirement("4.3.0").startswith("pyarrow==")


def test_the_locked_version_needs_no_environment() -> None:
    assert spark_python(None) == spark_python(locked_spark_version()) == sys.executable


@pytest.mark.parametrize("version", ["3.5.3", "4.1", "latest", "5.0.0"])
def test_a_version_that_is_not_a_pyspark_4_release_is_one_line(
    version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SparkEnvError, match="give a PySpark 4 release such as 4.0.0"):
        spark_python(version)
    assert run_cli(["run", "endless-retention", "--spark", version]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"scenarios: --spark {version}: give a PySpark 4 release")


def test_an_environment_made_without_protobuf_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older environments lack protobuf, which transformWithState's workers need: the next
    use rebuilds them instead of failing inside a state scenario."""
    folder = tmp_path / "4.0.0"
    (folder / "bin").mkdir(parents=True)
    old = ["pyspark[sql]==4.0.0", "pyarrow>=15,<19", "kafka-python==3.0.12", "pandas>=2.2,<3"]
    (folder / "ready.json").write_text(json.dumps({"pyspark": "4.0.0", "requirements": old}))
    made: list[str] = []
    monkeypatch.setattr(spark_envs, "environment_folder", lambda version: folder)
    monkeypatch.setattr(spark_envs, "_make", lambda version, where, say: made.append(version))
    monkeypatch.setattr(spark_envs, "_add_connect", lambda version, where, say: None)
    spark_envs.spark_python("4.0.0", say=lambda _: None)
    assert made == ["4.0.0"]
    requirements = spark_envs.requirements("4.0.0")
    assert any(r.startswith("protobuf==") for r in requirements)
    (folder / "bin").mkdir(parents=True)
    (folder / "ready.json").write_text(json.dumps({"requirements": requirements}))
    spark_envs.spark_python("4.0.0", say=lambda _: None)
    assert made == ["4.0.0"]  # made with today's requirements: kept


def test_spark_connects_client_is_added_to_an_environment_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An environment made before --connect gets the connect extra added, not a new 450 MB
    environment; with pyarrow and pandas held where they were; and only once."""
    installs: list[tuple[str, ...]] = []
    monkeypatch.setattr(spark_envs, "_uv", lambda *args: installs.append(args))
    said: list[str] = []
    spark_envs._add_connect("4.0.0", tmp_path, said.append)
    spark_envs._add_connect("4.0.0", tmp_path, said.append)
    [install] = installs
    assert install[:2] == ("pip", "install") and "pyspark[connect]==4.0.0" in install
    assert spark_envs.pyarrow_requirement("4.0.0") in install and "pandas>=2.2,<3" in install
    assert said == ["adding Spark Connect's client to PySpark 4.0.0's environment (first use only)"]


def test_offline_goes_with_spark_not_with_stack(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["matrix", "--stack", "all", "--offline"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("scenarios: --offline goes with --spark")


def test_a_kafka_matrix_runs_each_version_and_names_it_in_every_report(tmp_path: Path) -> None:
    """Tiny scenarios (no broker) through the real runner: the column, the folder and each
    report carry the Kafka version the run was told."""

    def names_it(stage) -> None:
        with stage.step(Step("end", happens="a check")):
            stage.expect(check("kafka", True, "yes", f"on {stage.settings.kafka_version}"))

    chosen = [Scenario(name="tiny", title="tiny", summary="", origin="test", run=names_it)]
    matrix = run_kafka_matrix(
        ["4.0.2", "4.4.0"], chosen, RunSettings(), Narrator(rich=False), tmp_path
    )
    assert matrix.exit_code == 0 and matrix.heading("4.0.2") == "Kafka 4.0.2"
    assert "| held: on 4.0.2 | held: on 4.4.0 |" in (tmp_path / "matrix.md").read_text()
    report = json.loads((tmp_path / "kafka-4.4.0" / "tiny.json").read_text())
    assert report["kafka_version"] == "4.4.0"
    assert "Kafka 4.4.0" in verdict_lines([ScenarioResult("t", "t", kafka_version="4.4.0")])[0]


def test_the_pinned_kafka_is_in_the_report_but_not_in_the_verdict_line() -> None:
    pinned = kafka_version_of(RunSettings())
    assert (
        pinned and "Kafka" not in verdict_lines([ScenarioResult("t", "t", kafka_version=pinned)])[0]
    )
    assert kafka_version_of(OFFLINE.applied_to(RunSettings())) == ""
    assert kafka_version_of(RunSettings(bootstrap_servers="kafka:9092")) == ""


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", "checkpoint-reset", "--kafka-version", "3.9.0"], "is not a Kafka 4.x version"),
        (
            ["run", "checkpoint-reset", "--kafka-version", "4.0.2", "--offline"],
            "applies to the Apache Kafka the scenarios start",
        ),
        (["matrix", "--kafka-version", "4.0.2,4.4.0", "--offline"], "--offline runs the embedded"),
    ],
)
def test_a_kafka_version_that_cannot_run_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(argv) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("scenarios: ") and says in line


def test_a_store_matrix_runs_each_store_and_skips_a_scenario_that_cannot_use_one(
    tmp_path: Path,
) -> None:
    """Tiny scenarios (no broker, no store started) through the real runner: a column per store,
    a folder per store, and a scenario that declares only `local` skipped on hdfs, saying why."""

    def names_it(stage) -> None:
        with stage.step(Step("end", happens="a check")):
            stage.expect(check("store", True, "yes", f"on {stage.settings.checkpoint_store}"))

    anywhere = Scenario(
        name="anywhere",
        title="t",
        summary="",
        origin="test",
        run=names_it,
        checkpoint_stores=("local", "hdfs"),
    )
    local_only = Scenario(name="local-only", title="t", summary="", origin="test", run=names_it)
    matrix = run_store_matrix(
        ["local", "hdfs"], [anywhere, local_only], RunSettings(), Narrator(rich=False), tmp_path
    )
    assert matrix.heading("hdfs") == "store hdfs" and matrix.exit_code == 0
    table = (tmp_path / "matrix.md").read_text()
    assert "| held: on local | held: on hdfs |" in table
    assert (
        json.loads((tmp_path / "store-hdfs" / "local-only.json").read_text())["verdict"]
        == "skipped"
    )
    assert json.loads((tmp_path / "matrix.json").read_text())["folders"]["hdfs"] == "store-hdfs"


def test_an_unknown_store_in_a_matrix_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["matrix", "--checkpoint-store", "local,nfs", "endless-retention"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("scenarios: --checkpoint-store local,nfs: nfs; the stores are local")


def test_an_unknown_api_in_a_matrix_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["matrix", "--api", "classic,rest", "endless-retention"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "scenarios: --api classic,rest: rest; the APIs are classic, connect, "
        "e.g. --api classic,connect"
    )


def test_the_api_matrix_runs_each_column_with_connect_on_or_off(tmp_path: Path) -> None:
    """Tiny scenarios (no broker) through the real runner: the connect column's runs are told
    to run the app through Spark Connect, the classic column's are not."""

    def says_api(stage) -> None:
        with stage.step(Step("end", happens="a check")):
            stage.expect(check("api", True, "told", f"connect={stage.settings.connect}"))

    chosen = [Scenario(name="tiny", title="tiny", summary="", origin="test", run=says_api)]
    matrix = run_api_matrix(
        ["classic", "connect"], chosen, RunSettings(), Narrator(rich=False), tmp_path
    )
    said = {api: matrix.results[api][0].checks[0].actual for api in ("classic", "connect")}
    assert said == {"classic": "connect=False", "connect": "connect=True"}
    assert json.loads((tmp_path / "matrix.json").read_text())["folders"]["connect"] == "api-connect"
