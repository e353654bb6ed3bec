"""The puzzle's pure parts: which fault a seed draws, how a repaired job's output is judged, the
job's line read back, and the command's lines (the trainer's answer, the attendee's check, bad
input). No process starts: folders are written by hand, output logs as the Spark app writes them.

Usage: `uv run pytest tests/scenarios/puzzle/test_puzzle.py`
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scenarios.checker.verify import verify
from scenarios.cli import run_cli
from scenarios.exercises.errors import HandsOnError
from scenarios.exercises.history import keep_output
from scenarios.exercises.workspace import Setup
from scenarios.puzzle import FAULTS, fault_for, seed_for
from scenarios.puzzle.job import job_args, missing_fixed
from scenarios.puzzle.judge import judge_repair
from scenarios.puzzle.setup import STORY
from scenarios.puzzle.table import PAGE, with_table
from scenarios.puzzle_command import PUZZLE
from spark_app.settings import SparkAppSettings
from tests.scenarios.exercises.test_exercise_command import output_lines

FIXED = ["--bootstrap-servers", "127.0.0.1:40123", "--checkpoint-dir", "puzzle/checkpoints"]


def fault(name: str):  # noqa: ANN201 - the Fault, named in a line
    return next(f for f in FAULTS if f.name == name)


def judged(pairs: list[tuple[int, int]], name: str, facts: dict[str, Any], query_id: str = "q"):  # noqa: ANN201
    report = verify(output_lines(pairs).splitlines())
    return judge_repair(report, fault(name), {"query_id": "q", **facts}, query_id)


# --- drawing ----------------------------------------------------------------------------------


def test_at_least_five_faults_and_every_block_of_seeds_draws_each_once() -> None:
    names = [f.name for f in FAULTS]
    assert len(set(names)) == len(names) >= 5
    for block in range(4):
        seeds = range(block * len(FAULTS), (block + 1) * len(FAULTS))
        assert sorted(fault_for(s).name for s in seeds) == sorted(names)


def test_a_seed_draws_the_same_fault_every_time_and_blocks_are_shuffled_differently() -> None:
    assert [fault_for(s).name for s in range(40)] == [fault_for(s).name for s in range(40)]
    orders = {
        tuple(fault_for(b * len(FAULTS) + i).name for i in range(len(FAULTS))) for b in range(8)
    }
    assert len(orders) > 1


def test_seed_for_finds_a_seed_of_each_fault() -> None:
    for f in FAULTS:
        assert fault_for(seed_for(f.name)) is f


# --- judging ----------------------------------------------------------------------------------


def test_a_job_that_goes_on_from_the_checkpoint_is_repaired() -> None:
    verdict = judged([(n, n) for n in range(1, 21)], "torn-offsets", {"processed": 8})
    assert verdict.done and "continues exactly once" in verdict.lines[-1]


def test_a_reset_is_not_repaired_and_says_what_the_count_lost() -> None:
    pairs = [(n, n) for n in range(1, 9)] + [(n - 8, n) for n in range(9, 20)]
    verdict = judged(pairs, "state-schema", {"processed": 8}, query_id="new")
    assert not verdict.done
    assert any("a reset" in line and "the 8 messages before it" in line for line in verdict.lines)


def test_a_batch_written_twice_is_not_repaired() -> None:
    pairs = [(n, n) for n in range(1, 9)] + [(n, n) for n in range(6, 15)]
    verdict = judged(pairs, "metadata-deleted", {"processed": 8}, query_id="other")
    assert not verdict.done
    assert any(line.startswith("counted twice: values 6..8") for line in verdict.lines)


def test_retention_allows_the_values_it_deleted_and_names_them_for_a_backfill() -> None:
    # Values 9..15 aged out while the job was down; it skips them and the count goes on.
    pairs = [(n, n) for n in range(1, 9)] + [(n - 7, n) for n in range(16, 25)]
    verdict = judged(pairs, "retention", {"processed": 8, "earliest": 15})
    assert verdict.done, verdict.lines
    assert "values 9..15" in verdict.lines[-1] and "backfill" in verdict.lines[-1]


def test_values_skipped_beyond_what_retention_deleted_are_never_counted() -> None:
    pairs = [(n, n) for n in range(1, 9)] + [(n - 9, n) for n in range(18, 25)]
    verdict = judged(pairs, "retention", {"processed": 8, "earliest": 15})
    assert not verdict.done
    assert "never counted: values 16..17" in verdict.lines


def test_a_new_stream_starts_its_count_over_at_its_first_value_only() -> None:
    facts = {"processed": 8, "first_new": 9}
    fresh = [(n, n) for n in range(1, 9)] + [(n - 8, n) for n in range(9, 20)]
    assert judged(fresh, "fewer-partitions", facts, query_id="new").done
    # From latest: the new topic's first messages are never counted.
    late = [(n, n) for n in range(1, 9)] + [(n - 12, n) for n in range(13, 20)]
    verdict = judged(late, "fewer-partitions", facts, query_id="new")
    assert not verdict.done


def test_the_verdict_never_names_the_fault_or_its_repair() -> None:
    pairs = [(n, n) for n in range(1, 9)] + [(n - 8, n) for n in range(9, 20)]
    facts = {"processed": 8, "first_new": 40, "earliest": 8}
    for f in FAULTS:
        text = "\n".join(judged(pairs, f.name, facts, query_id="new").lines)
        assert f.name not in text and "fail-on-data-loss" not in text and "metadata" not in text


# --- the job's line ---------------------------------------------------------------------------


def test_the_jobs_arguments_are_read_from_its_line_and_comments_are_skipped() -> None:
    script = (
        "#!/bin/sh\n# python -m spark_app --no\ncd x || exit 2\n"
        "exec uv run python -m spark_app --a 1 '--b' \"two words\"\n"
    )
    assert job_args(script) == ["--a", "1", "--b", "two words"]


def test_a_job_without_the_apps_line_or_with_a_broken_quote_is_one_error() -> None:
    with pytest.raises(HandsOnError, match="no line that starts the app"):
        job_args("#!/bin/sh\necho hello\n")
    with pytest.raises(HandsOnError, match="cannot read the line"):
        job_args("exec uv run python -m spark_app --a 'open\n")


def test_the_fixed_options_must_stay_as_the_last_word_on_them() -> None:
    assert missing_fixed([*FIXED, "--fail-on-data-loss", "false"], FIXED) == []
    moved = [*FIXED, "--checkpoint-dir=elsewhere"]
    assert missing_fixed(moved, FIXED) == ["--checkpoint-dir puzzle/checkpoints"]
    assert missing_fixed(FIXED[2:], FIXED) == ["--bootstrap-servers 127.0.0.1:40123"]


# --- the command ------------------------------------------------------------------------------


@pytest.fixture()
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_answer_gives_the_trainer_the_fault_and_its_repair(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for f in FAULTS:
        seed = seed_for(f.name)
        assert run_cli(["puzzle", "--answer", str(seed)]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"puzzle {seed}: {f.name}: {f.title}")
        assert all(line in out for line in (*f.sees, *f.best, *f.wrong))


def test_the_story_is_the_same_for_every_fault() -> None:
    text = "\n".join(STORY)
    assert not any(f.name in text for f in FAULTS)


@pytest.mark.parametrize(
    "argv",
    [["--seed", "x"], [], ["--seed", "1", "--check"], ["--answer"], ["--bogus"]],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli(["puzzle", *argv])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("python -m scenarios puzzle: ")


def test_check_before_a_setup_says_how_to_start_one_in_one_line(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["puzzle", "--check"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "puzzle --seed S" in err[0]


def set_up_by_hand(seed: int, edit: str) -> None:
    """The folder a setup leaves, its job.sh with `edit` appended to the app's line."""
    settings = SparkAppSettings(bootstrap_servers="127.0.0.1:40123")
    PUZZLE.root.mkdir(parents=True)
    fixed = PUZZLE.job_settings("127.0.0.1:40123", "Experience")
    PUZZLE.write_app_script(fixed, more_options=False)
    script = PUZZLE.app_script.read_text()
    PUZZLE.app_script.write_text(script.rstrip("\n") + f" {edit}\n")
    facts = {"seed": seed, "query_id": "q", "processed": 8, "fixed_args": fixed.to_argv()}
    PUZZLE.save(
        Setup("puzzle", "apache/connector", settings.bootstrap_servers, "Experience", (), facts)
    )
    PUZZLE.output_log.parent.mkdir(parents=True, exist_ok=True)
    PUZZLE.output_log.write_text(output_lines([(n, n) for n in range(1, 9)]))
    keep_output(PUZZLE)


def test_a_job_moved_off_the_puzzles_checkpoint_is_not_yet_and_names_no_fault(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = seed_for("torn-offsets")
    set_up_by_hand(seed, "--checkpoint-dir elsewhere")
    assert run_cli(["puzzle", "--check"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"puzzle {seed}: not yet")
    assert "--checkpoint-dir puzzle/checkpoints" in out and "torn" not in out


def test_reset_removes_the_folder_and_says_so_when_there_is_none(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up_by_hand(0, "")
    assert run_cli(["puzzle", "--reset"]) == 0
    assert not PUZZLE.root.exists()
    assert run_cli(["puzzle", "--reset"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "removed puzzle/",
        "nothing to remove: no puzzle/",
    ]


# --- the docs ---------------------------------------------------------------------------------


def test_the_pages_faults_table_is_the_puzzles_own_list() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert with_table(page) == page, "run: uv run python -m scenarios.puzzle.table"
    for f in FAULTS:
        assert f"| `{f.name}` |" in page
