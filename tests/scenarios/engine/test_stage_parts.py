"""The stage's parts before anything runs: each one exists from the start and says in one
sentence what to start first; the one wait that fails as soon as the app dies; and the rule that
scenarios ask for "Kafka" and "the app", never for a broker or a source by name."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from launch.errors import ProcessError
from launch.group import ProcessGroup
from launch.process import wait_while_alive
from scenarios.catalog import SCENARIO_MODULES
from scenarios.catalog.museum import EXHIBIT_MODULES
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.engine.stage import Stage
from scenarios.errors import StepFailed
from scenarios.registry import all_scenarios
from spark_app.lines.output_line import OutputRow, format_lines
from tests.scenarios.more_helpers import idle_stage


def _steps_before_start(stage: Stage) -> dict[str, Callable[[], object]]:
    return {
        "kafka.window": stage.kafka.window,
        "kafka.send_negative_key": stage.kafka.send_negative_key,
        "kafka.set_retention": lambda: stage.kafka.set_retention(5),
        "kafka.grow_partitions": lambda: stage.kafka.grow_partitions(3),
        "kafka.recreate_topic": lambda: stage.kafka.recreate_topic(1),
        "kafka.topic": lambda: stage.kafka.topic,
        "app.start": stage.app.start,
        "app.kill": stage.app.kill,
        "app.stop": stage.app.stop,
        "app.wait_exit": stage.app.wait_exit,
        "app.output": stage.app.output,
        "brokers.leader": stage.brokers.leader,
        "brokers.kill": lambda: stage.brokers.kill(1),
        "network.cut": stage.network.cut,
        "network.restore": stage.network.restore,
        "output.verify_sent": stage.output.verify_sent,
        "output.wait_for_value": lambda: stage.output.wait_for_value(1),
        "output.wait_for_batches": lambda: stage.output.wait_for_batches(1),
        "finish_exactly_once": stage.finish_exactly_once,
    }


@pytest.mark.parametrize("step", list(_steps_before_start(idle_stage(Path("unused")))))
def test_a_part_used_before_it_started_says_so_in_one_sentence(tmp_path: Path, step: str) -> None:
    stage = idle_stage(tmp_path / "run")
    with pytest.raises(StepFailed) as failed:
        _steps_before_start(stage)[step]()
    message = str(failed.value)
    assert "\n" not in message and message.count(". ") == 0, message
    assert any(word in message for word in ("start", "behind_proxy")), message
    assert stage.group.processes == []  # nothing was started on the way


def test_the_output_part_reads_an_output_log_without_an_app(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path / "run")
    assert stage.output.verify().messages == 0  # no log yet: nothing written, not an error
    rows = [OutputRow("Experience", str(-v if v == 5 else v), str(v), v) for v in range(1, 8)]
    stage.folders.log.mkdir(parents=True)
    stage.folders.output_log.write_text(format_lines(rows, datetime(2026, 1, 1)))
    assert stage.output.verify().highest == 7
    assert [stage.output.negative_key_lines(v) for v in (4, 5)] == [0, 1]


def test_the_output_part_reads_where_each_v2_message_came_from(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path / "run")
    assert stage.output.message_lines() == []  # no log yet
    rows = [
        OutputRow("Experience", str(v), str(v), v, partition=v % 2, offset=v // 2)
        for v in range(1, 5)
    ]
    stage.folders.log.mkdir(parents=True)
    stage.folders.output_log.write_text(format_lines(rows, datetime(2026, 1, 1), "v2"))
    lines = stage.output.message_lines()
    assert [(m.value, m.partition, m.offset) for m in lines] == [
        (1, 1, 0),
        (2, 0, 1),
        (3, 1, 1),
        (4, 0, 2),
    ]


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_wait_fails_at_once_with_the_last_words_of_a_process_that_died(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        dying = group.start("app", _python("print('KAFKA_UNREACHABLE: nobody answers'); exit(3)"))
        with pytest.raises(
            ProcessError, match="(?s)app exited with code 3 before value 9.*KAFKA_UNREACHABLE"
        ):
            wait_while_alive(dying, lambda: None, what="value 9", timeout=60)


def test_the_wait_returns_what_the_condition_found_while_the_process_runs(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        talking = group.start(
            "app", _python("import time; print('ready', flush=True); time.sleep(30)")
        )
        found = wait_while_alive(
            talking, lambda: "ready" in talking.output() or None, what="ready", timeout=60
        )
        assert found is True and talking.running


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    return names | {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    }


# The museum's exhibits and their shared restart tell their stories with the stage too.
STORY_MODULES = (*SCENARIO_MODULES, *EXHIBIT_MODULES, "scenarios.catalog.museum.restart")


@pytest.mark.parametrize("module", STORY_MODULES)
def test_a_scenario_asks_for_kafka_and_the_app_never_for_a_broker_or_source(module: str) -> None:
    path = PROJECT_ROOT / (module.replace(".", "/") + ".py")
    banned = ("launch.kafka", "launch.spark", "kafka_app.broker", "spark_app.source")
    assert not [m for m in _imported_modules(path) if m.startswith(banned)]
    text = path.read_text(encoding="utf-8")
    for reach in (
        "stage.spark",
        "stage.proxy",
        "stage.group",
        "SparkLauncher",
        "KafkaSide",
        "EmbeddedBroker",
    ):
        assert reach not in text, f"{module} reaches through the stage: {reach}"


@pytest.mark.parametrize("module", STORY_MODULES)
def test_every_step_a_scenario_takes_is_on_the_stage(module: str, tmp_path: Path) -> None:
    """`stage.X` and `stage.PART.Y` name what exists: a renamed step fails here, not after a
    20-minute run."""
    stage = idle_stage(tmp_path / "run")
    tree = ast.parse(
        (PROJECT_ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
    )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "stage"
        ):
            assert hasattr(stage, node.attr), f"{module}:{node.lineno}: stage.{node.attr}"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "stage"
            and node.value.attr in ("kafka", "app", "network", "output", "brokers")
        ):
            part = getattr(stage, node.value.attr)
            assert hasattr(type(part), node.attr) or node.attr in vars(part), (
                f"{module}:{node.lineno}: stage.{node.value.attr}.{node.attr}"
            )


def test_no_scenario_description_names_our_issue_tracker() -> None:
    for scenario in all_scenarios():
        for text in (scenario.title, scenario.summary, scenario.origin):
            assert "issue" not in text.lower(), f"{scenario.name}: {text}"


def test_the_kind_of_kafka_is_the_runs_setting_and_an_unknown_one_starts_nothing(
    tmp_path: Path,
) -> None:
    stage = Stage(
        "t",
        RunSettings(kafka="no-such-kafka"),
        tmp_path / "run",
    )
    with pytest.raises(ProcessError, match="no way to start a Kafka of kind 'no-such-kafka'"):
        stage.kafka.start(retention_sec=60)
    assert stage.group.processes == []


def test_an_empty_answer_is_not_yet_an_answer(tmp_path: Path) -> None:
    """parallelism waits for `[batch lines with three ranges]`: [] must keep it waiting."""
    answers = iter([[], None, ["batch 3"]])
    with ProcessGroup(tmp_path) as group:
        talking = group.start("app", _python("import time; time.sleep(30)"))
        assert wait_while_alive(
            talking, lambda: next(answers), what="three ranges", timeout=30, poll=0.01
        ) == ["batch 3"]


class _BuggyThenFineLauncher:
    """Stands in for SparkLauncher: its first start dies as Spark 4.1.1's connector does after
    replaying a committed batch (the app's own line), every later one prints `value 9`."""

    def __init__(self, group: ProcessGroup, line: str) -> None:
        self.group, self.line, self.starts, self.current = group, line, 0, None
        self.options: list[dict[str, object]] = []

    def start(self, **options: object):
        self.starts += 1
        self.options.append(options)
        code = (
            f"import sys; print({self.line!r}, file=sys.stderr); sys.exit(1)"
            if self.starts == 1
            else "import time; print('value 9', flush=True); time.sleep(60)"
        )
        self.current = self.group.start(f"spark-{self.starts}", _python(code))
        return self.current


@pytest.mark.parametrize("version, expected", [("4.1.1", True), ("4.2.0", False)])
def test_sparks_known_replay_bug_restarts_the_app_once_and_is_expected_on_4_1_only(
    tmp_path: Path, version: str, expected: bool
) -> None:
    from checkpoint_stores import CheckpointPlace
    from spark_app.failures.known_bugs import known_spark_bug
    from spark_app.settings import SparkAppSettings
    from tests.scenarios.more_helpers import write_batch

    checkpoint = tmp_path / "checkpoints"
    write_batch(checkpoint, 0, {0: 10})
    raised = 'Cannot invoke "x" because the return value of "scala.Option.get()" is null'
    line = str(
        known_spark_bug(
            raised,
            SparkAppSettings(source="spark-kafka", checkpoint=CheckpointPlace(folder=checkpoint)),
            version,
        )
    )
    with idle_stage(tmp_path / "run") as stage:
        launcher = _BuggyThenFineLauncher(stage.group, f"error: {line}")
        stage.app._launcher = launcher  # noqa: SLF001 (the stand-in for real Spark)
        stage.app.start(sink="exactly-once")
        seen = stage.app.wait_while_up(lambda: "value 9" in stage.app.output() or None, "value 9")
    assert seen and launcher.starts == 2 and launcher.options[1] == {"sink": "exactly-once"}
    [met] = stage.checks
    assert "SPARK-55271" in met.name and met.held is expected and version in met.actual
