"""Stacks: which Kafka and which source a run uses, spelled KAFKA/SOURCE, and the matrix over them.

The tiny scenario below runs through the real runner and only records the stack it was given,
so no Kafka or Spark starts; the e2e tests run real scenarios on the real stacks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.cli import main_parser
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings
from scenarios.engine.stacks import (
    DEFAULT,
    OFFLINE,
    REAL,
    STACKS,
    chosen_stack,
    parse_stack,
    stack_of,
)
from scenarios.engine.step import Step
from scenarios.errors import ScenarioError
from scenarios.report.narration import Narrator
from scenarios.run.matrix import run_stack_matrix


def test_the_four_stacks_and_their_spelling() -> None:
    assert [s.name for s in STACKS] == [
        "embedded/python",
        "embedded/connector",
        "apache/python",
        "apache/connector",
    ]
    assert parse_stack("apache/spark-kafka") == REAL  # the app's --source word is taken too
    settings = REAL.applied_to(RunSettings())
    assert (settings.kafka, settings.source) == ("apache", "spark-kafka")
    assert stack_of(settings) == REAL and settings.stack == "apache/connector"
    assert RunSettings(bootstrap_servers="h:9").stack == "external/connector"


@pytest.mark.parametrize("text", ["apache", "kafka/python", "embedded/scala", ""])
def test_an_unknown_stack_is_one_line_naming_the_right_spelling(text: str) -> None:
    with pytest.raises(ScenarioError, match="write KAFKA/SOURCE .* e.g. apache/connector"):
        parse_stack(text)


def chosen(*argv: str):
    return chosen_stack(main_parser().parse_args(["run", "tiny", *argv]))


def test_the_flags_name_a_stack_alone_or_together() -> None:
    assert chosen() == DEFAULT == REAL  # what production runs, unless told otherwise
    assert RunSettings().stack == REAL.name
    assert chosen("--offline") == OFFLINE
    assert chosen("--stack", "apache/connector") == REAL
    assert chosen("--kafka", "embedded", "--source", "python") == OFFLINE
    assert chosen("--kafka", "embedded").name == "embedded/connector"
    assert chosen("--source", "python").name == "apache/python"
    assert chosen("--stack", "apache/connector", "--kafka", "apache") == REAL


@pytest.mark.parametrize(
    "argv",
    [
        ["--offline", "--kafka", "apache"],
        ["--stack", "apache/connector", "--source", "python"],
        ["--stack", "apache/connector", "--offline"],
    ],
)
def test_flags_that_disagree_are_refused_in_one_line(argv: list[str]) -> None:
    with pytest.raises(ScenarioError, match="give one"):
        chosen(*argv)


def test_the_stack_matrix_runs_each_stack_with_its_settings(tmp_path: Path) -> None:
    def records(stage) -> None:
        s = stage.settings
        with stage.step(Step("end", happens="the stack is read")):
            stage.expect(check("stack", True, "any", f"{s.kafka} + {s.source}"))

    tiny = [Scenario(name="tiny", title="tiny", summary="", origin="test", run=records)]
    matrix = run_stack_matrix([OFFLINE, REAL], tiny, RunSettings(), Narrator(rich=False), tmp_path)

    rows = {row.check: row for row in matrix.rows()}
    assert rows["end › stack"].cells == {
        "embedded/python": "held: embedded + python",
        "apache/connector": "held: apache + spark-kafka",
    }
    assert rows["end › stack"].differs
    assert (
        "| scenario | check | embedded/python | apache/connector | differs |" in matrix.markdown()
    )
    assert json.loads((tmp_path / "matrix.json").read_text())["versions"] == [
        "embedded/python",
        "apache/connector",
    ]
    assert (tmp_path / "apache-connector" / "tiny.json").is_file()
    assert (
        'href="apache-connector/index.html#scenario-tiny"' in (tmp_path / "matrix.html").read_text()
    )
