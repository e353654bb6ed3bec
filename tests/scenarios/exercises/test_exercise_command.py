"""`python -m scenarios exercise` on folders set up by hand: what the attendee and the trainer see.

No process starts: each test writes the folder a setup leaves (setup.json, the kept output log,
the output log the attendee's runs wrote) and runs the command line on it, from where the
attendee works (the exercise's folder is relative to it).

Usage: `uv run pytest tests/scenarios/exercises/test_exercise_command.py`
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scenarios.cli import run_cli
from scenarios.exercises import all_exercises
from scenarios.exercises.history import keep_output
from scenarios.exercises.workspace import EXERCISE_HOME, Setup, Workspace

STAMP = "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: "


def output_lines(pairs: list[tuple[int, int]]) -> str:
    """The output log's lines for (count, value) pairs, as the Spark app writes them."""
    return "".join(
        f"{STAMP}Count = {count}\n{STAMP}Experience: {value} -> {value}\n" for count, value in pairs
    )


def set_up(name: str, facts: dict[str, Any], output_before: str = "") -> Workspace:
    """The folder a setup of `name` leaves, with `facts`, its output log as `output_before`."""
    ws = Workspace(EXERCISE_HOME / name)
    ws.root.mkdir(parents=True)
    ws.save(Setup(name, "apache/connector", "127.0.0.1:40123", "Experience", ("--x",), facts))
    ws.output_log.parent.mkdir(parents=True, exist_ok=True)
    ws.output_log.write_text(output_before)
    keep_output(ws)
    return ws


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_list_names_every_exercise_once_in_the_order_of_the_day(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["exercise", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    modules = [int(line.split()[1]) for line in lines]
    assert len(lines) >= 6 and modules == sorted(modules) and set(modules) >= set(range(3, 9))
    for exercise in all_exercises():
        assert sum(f" {exercise.name} " in line for line in lines) == 1


def test_check_before_a_setup_says_how_to_start_it_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["exercise", "count-at-batch", "--check", "5"]) == 2
    err = capsys.readouterr().err
    assert "not set up" in err and "python -m scenarios exercise count-at-batch" in err


def test_an_unknown_exercise_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["exercise", "no-such-thing", "--check"]) == 2
    assert "no exercise named no-such-thing" in capsys.readouterr().err


def test_count_at_batch_passes_the_right_count_only_and_never_prints_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up(
        "count-at-batch", {"query_id": "q", "last_batch": 8, "batch": 5, "count_after_batch": 37}
    )
    assert run_cli(["exercise", "count-at-batch", "--check"]) == 1
    assert run_cli(["exercise", "count-at-batch", "--check", "36"]) == 1
    assert run_cli(["exercise", "count-at-batch", "--check", "many"]) == 1
    not_yet = capsys.readouterr().out
    assert "not yet" in not_yet and "37" not in not_yet
    assert run_cli(["exercise", "count-at-batch", "--check", "37"]) == 0
    assert "DONE" in capsys.readouterr().out


def test_count_the_doubles_holds_the_answer_to_the_output_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = set_up("count-the-doubles", {"query_id": "q"})
    assert run_cli(["exercise", "count-the-doubles", "--check", "0"]) == 1
    assert "no value is in the output log twice" in capsys.readouterr().out
    # A kill -9 between a batch's output and its commit: values 4..6 written again.
    pairs = [(n, n) for n in range(1, 7)] + [(n, n) for n in range(4, 10)]
    ws.output_log.write_text(output_lines(pairs))
    assert run_cli(["exercise", "count-the-doubles", "--check", "5"]) == 1
    assert "3" not in capsys.readouterr().out
    assert run_cli(["exercise", "count-the-doubles", "--check", "3"]) == 0
    assert "DONE" in capsys.readouterr().out


def test_count_the_doubles_refuses_a_log_that_lost_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = set_up("count-the-doubles", {"query_id": "q"})
    pairs = [(n, n) for n in range(1, 7)] + [(n, n) for n in range(4, 7)] + [(10, 10)]
    ws.output_log.write_text(output_lines(pairs))
    assert run_cli(["exercise", "count-the-doubles", "--check", "3"]) == 1
    assert "missing" in capsys.readouterr().out


def test_reset_from_offsets_fails_while_the_old_checkpoint_is_gone_or_unused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up("reset-from-offsets", {"query_id": "q", "processed": 8}, output_lines([(1, 1)]))
    assert run_cli(["exercise", "reset-from-offsets", "--check"]) == 1
    assert "holds no batch yet" in capsys.readouterr().out


def test_hints_come_one_more_each_time_and_stop_at_the_last(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up(
        "count-at-batch", {"query_id": "q", "last_batch": 8, "batch": 5, "count_after_batch": 37}
    )
    hints = next(e for e in all_exercises() if e.name == "count-at-batch").hints
    for _ in range(len(hints) + 1):
        assert run_cli(["exercise", "count-at-batch", "--hint"]) == 0
    said = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]
    n = len(hints)
    assert said == [f"hint {i} of {n}" for i in range(1, n + 1)] + [f"hint {n} of {n}"]


def test_answers_give_the_trainer_each_exercise_and_a_set_up_folders_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up(
        "count-at-batch", {"query_id": "q", "last_batch": 8, "batch": 5, "count_after_batch": 37}
    )
    assert run_cli(["exercise", "--answers"]) == 0
    out = capsys.readouterr().out
    for exercise in all_exercises():
        assert f"== {exercise.name} (module {exercise.module})" in out
    assert f"answer in {EXERCISE_HOME / 'count-at-batch'}/: 37" in out
    assert "--state-batch 5" in out


def test_reset_removes_the_folder_and_says_so_when_there_is_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ws = set_up("count-at-batch", {"query_id": "q"})
    assert run_cli(["exercise", "count-at-batch", "--reset"]) == 0
    assert not ws.root.exists() and "removed" in capsys.readouterr().out
    assert run_cli(["exercise", "count-at-batch", "--reset"]) == 0
    assert "nothing to remove" in capsys.readouterr().out
