"""Splitting a run: --shard's choice, the command line a job of `run -j` gets, and the one-line
refusals (no scenario runs in these tests)."""

from __future__ import annotations

import pytest

from scenarios.cli import _options_for_a_job, main_parser
from scenarios.errors import ScenarioError
from scenarios.run.shards import Shard


def test_shards_of_one_run_take_every_scenario_exactly_once() -> None:
    names = [f"s{i}" for i in range(7)]
    picked = [Shard(i, 3).pick(names) for i in (1, 2, 3)]
    assert picked == [["s0", "s3", "s6"], ["s1", "s4"], ["s2", "s5"]]
    assert sorted(n for shard in picked for n in shard) == sorted(names)


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "1/0", "-1/2"])
def test_a_wrong_shard_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ScenarioError, match="give I/N with 1 <= I <= N"):
        Shard.parse(text)


def test_the_command_line_refuses_a_wrong_shard_and_a_wrong_job_count(capsys) -> None:
    for wrong in (["--shard", "5/4"], ["-j", "0"]):
        with pytest.raises(SystemExit):
            main_parser().parse_args(["run", "all", *wrong])
        assert "error:" in capsys.readouterr().err


def test_a_job_gets_the_runs_options_but_its_own_name_folder_and_scenario_options() -> None:
    argv = ["run", "chaos", "endless-retention", "--fast", "-j", "2", "--report", "r",
            "--kills", "3", "--shard=1/2", "--stack", "embedded/python"]
    names = ["chaos", "endless-retention"]
    assert _options_for_a_job(argv, names, "chaos") == ["--fast", "--kills", "3", "--stack",
                                                        "embedded/python"]
    assert _options_for_a_job(argv, names, "endless-retention") == ["--fast", "--stack",
                                                                    "embedded/python"]
    assert _options_for_a_job(["run", "all", "-j3", "--fast"], ["all"], "chaos") == ["--fast"]


def test_report_folders_are_absolute_whatever_was_typed(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    parser = main_parser()
    assert parser.parse_args(["run", "all", "--report", "reports"]).report == tmp_path / "reports"
    assert parser.parse_args(["matrix", "--stack", "all", "--report", "r"]).report == tmp_path / "r"
    merged = parser.parse_args(["merge", "a", "b", "--into", "m"])
    assert merged.shards == [tmp_path / "a", tmp_path / "b"] and merged.into == tmp_path / "m"
