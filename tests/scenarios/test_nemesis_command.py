"""`python -m scenarios nemesis`: the plan, the dry run, the replay line, refusals (no Spark)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scenarios.cli import run_cli
from scenarios.engine.faults.appliers import Setup, unavailable
from scenarios.engine.faults.schedule import FAULT_KINDS
from scenarios.engine.settings import RunSettings
from scenarios.errors import ScenarioError
from scenarios.nemesis_command import _lines
from scenarios.run.nemesis import plan_nemesis, replay_command

# The default stack on a local checkpoint, as root: one broker, no cluster.
LOCAL = Setup("local", False, 1, False, broker_refusal=None, disk_refusal=None)


def test_a_dry_run_prints_the_skipped_kinds_then_the_schedule_and_starts_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["nemesis", "--minutes", "1", "--seed", "7", "--dry-run", "--fast"]) == 0
    lines = capsys.readouterr().out.splitlines()
    skipped = [line for line in lines if line.startswith("skipped: ")]
    assert {line.split(":")[1].strip() for line in skipped} >= {"broker", "store-cut", "executor"}
    head = lines[len(skipped)]
    assert head.startswith("seed 7: ") and "in 1 min of kill, term, pause" in head
    assert all(line.startswith("#") for line in lines[len(skipped) + 1 :])
    assert len(lines) > len(skipped) + 1


def test_the_same_seed_prints_the_same_schedule(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["nemesis", "--minutes", "2", "--seed", "31", "--faults", "kill,pause", "--dry-run"]
    run_cli(argv)
    first = capsys.readouterr().out
    run_cli(argv)
    assert capsys.readouterr().out == first
    run_cli([*argv[:4], "32", *argv[5:]])
    assert capsys.readouterr().out != first


def test_faults_picks_the_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(["nemesis", "--minutes", "3", "--seed", "5", "--faults", "pause", "--dry-run"])
    faults = [line for line in capsys.readouterr().out.splitlines() if line.startswith("#")]
    assert faults and all(line.split()[4] == "pause" for line in faults)


def test_a_seed_is_drawn_and_printed_when_none_is_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cli(["nemesis", "--faults", "kill", "--dry-run"])
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("seed ") and head.split()[1].rstrip(":").isdigit()


def test_a_run_that_can_apply_none_of_the_faults_asked_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["nemesis", "--faults", "store-cut,executor", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no fault asked for can be applied on this run" in err
    assert "store-cut: the checkpoint is a local folder" in err
    assert "executor: needs executors of their own: --cluster" in err


def test_an_unknown_fault_kind_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["nemesis", "--faults", "kill,clock-skew", "--dry-run"]) == 2
    assert "clock-skew" in capsys.readouterr().err


def test_each_kind_needs_what_applies_it() -> None:
    assert [k for k in FAULT_KINDS if unavailable(k, LOCAL) is None] == [
        "kill",
        "term",
        "pause",
        "kafka-cut",
        "disk",
    ]
    cluster = replace(LOCAL, brokers=3, cluster=True)
    assert unavailable("broker", cluster) is None and unavailable("executor", cluster) is None
    assert "in front of one broker" in (unavailable("kafka-cut", cluster) or "")
    s3 = replace(LOCAL, checkpoint_store="s3")
    assert unavailable("store-cut", s3) is None
    assert "on the s3 store" in (unavailable("disk", s3) or "")
    not_root = replace(LOCAL, disk_refusal="mounting a tmpfs needs root")
    assert unavailable("disk", not_root) == "mounting a tmpfs needs root"
    given = replace(LOCAL, kafka_given=True)
    assert "--bootstrap-servers" in (unavailable("kafka-cut", given) or "")


def test_the_plan_leaves_out_what_this_run_cannot_apply_and_keeps_the_reasons() -> None:
    plan = plan_nemesis(7, 2, ("kill", "broker", "disk"), LOCAL, fast=True)
    assert plan.kinds == ("kill", "disk")
    assert [k for k, _ in plan.skipped_kinds] == ["broker"]
    assert plan.lines()[0].startswith("skipped: broker: needs three brokers")
    assert {f.kind for f in plan.schedule.faults} <= {"kill", "disk"}
    with pytest.raises(ScenarioError, match="no fault asked for"):
        plan_nemesis(7, 2, ("broker",), LOCAL)


def test_the_replay_line_names_seed_kinds_stack_line_and_options() -> None:
    plan = plan_nemesis(7, 2.5, ("kill", "pause"), LOCAL, fast=True, retention_sec=20)
    settings = RunSettings(spark_version="4.0.0", checkpoint_store="local")
    line = replay_command(plan, settings)
    assert line == (
        "uv run python -m scenarios nemesis --minutes 2.5 --seed 7 --faults kill,pause "
        "--stack apache/connector --spark 4.0.0 --retention-sec 20 --fast"
    )
    replayed = run_cli([*line.split()[5:], "--dry-run"])
    assert replayed == 0


def test_several_spark_lines_are_read_as_a_matrix_of_the_same_schedule() -> None:
    """`--spark 4.0.0,4.2.0` soaks each line under the one seed's schedule; one line or none is
    the run as before (the project's own when none)."""
    assert _lines("4.0.0, 4.2.0,") == ["4.0.0", "4.2.0"]
    assert _lines("4.2.0") == ["4.2.0"]
    assert _lines(None) == []
