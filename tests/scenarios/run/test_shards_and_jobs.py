"""Splitting a run: --shard's choice, the command line a job of `run -j` gets, and the one-line
refusals, the order jobs start in (no scenario runs in these tests)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from scenarios.cli import _job_command, _options_for_a_job, main_parser
from scenarios.engine.scenario import LONG_RUN_SEC, Scenario, said_minutes
from scenarios.engine.settings import RunSettings
from scenarios.errors import ScenarioError
from scenarios.registry import all_scenarios
from scenarios.report.narration import Narrator
from scenarios.run.jobs import run_in_jobs
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
    argv = [
        "run",
        "chaos",
        "endless-retention",
        "--fast",
        "-j",
        "2",
        "--report",
        "r",
        "--kills",
        "3",
        "--shard=1/2",
        "--stack",
        "embedded/python",
    ]
    names = ["chaos", "endless-retention"]
    assert _options_for_a_job(argv, names, "chaos") == [
        "--fast",
        "--kills",
        "3",
        "--stack",
        "embedded/python",
    ]
    assert _options_for_a_job(argv, names, "endless-retention") == [
        "--fast",
        "--stack",
        "embedded/python",
    ]
    assert _options_for_a_job(["run", "all", "-j3", "--fast"], ["all"], "chaos") == ["--fast"]


def test_a_job_runs_on_the_runs_kafka_not_on_one_given_to_the_run(capsys) -> None:
    argv = ["run", "all", "--fast", "-j", "2", "--run-kafka", "10.0.0.9:1"]
    on_the_runs = _job_command(
        "chaos", ["all"], argv, Path("/r"), RunSettings(shared_kafka="127.0.0.1:4242")
    )
    assert on_the_runs[-4:] == ["--run-kafka", "127.0.0.1:4242", "--report", "/r"]
    assert "10.0.0.9:1" not in on_the_runs and on_the_runs[3:6] == ["run", "chaos", "--fast"]
    assert "--run-kafka" not in _job_command("chaos", ["all"], argv, Path("/r"), RunSettings())
    # The job's side: the option is read, and a person's --help does not offer it.
    assert main_parser().parse_args(["run", "chaos", "--run-kafka", "h:1"]).run_kafka == "h:1"
    with pytest.raises(SystemExit):
        main_parser().parse_args(["run", "--help"])
    shown = capsys.readouterr().out
    assert "--jobs" in shown and "--run-kafka" not in shown


def test_report_folders_are_absolute_whatever_was_typed(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    parser = main_parser()
    assert parser.parse_args(["run", "all", "--report", "reports"]).report == tmp_path / "reports"
    assert parser.parse_args(["matrix", "--stack", "all", "--report", "r"]).report == tmp_path / "r"
    merged = parser.parse_args(["merge", "a", "b", "--into", "m"])
    assert merged.shards == [tmp_path / "a", tmp_path / "b"] and merged.into == tmp_path / "m"


def test_every_scenario_past_the_bound_says_its_minutes_first() -> None:
    said = {s.name: said_minutes(s) for s in all_scenarios() if s.takes}
    assert said and all(minutes * 60 >= LONG_RUN_SEC for minutes in said.values()), said


def test_jobs_start_the_longest_first_and_report_in_the_order_given(tmp_path: Path) -> None:
    def scenario(name: str, takes: str = "") -> Scenario:
        return Scenario(name=name, title=name, summary="", origin="test", run=print, takes=takes)

    chosen = [
        scenario("short"),
        scenario("longer", "about 2 min: x"),
        scenario("also-short"),
        scenario("longest", "about 4.5 min: y"),
    ]
    said = io.StringIO()
    results = run_in_jobs(
        chosen, lambda name: [sys.executable, "-c", "pass"], 1, tmp_path, Narrator(stream=said)
    )
    started = re.findall(r"job (\S+) started", said.getvalue())
    assert started == ["longest", "longer", "short", "also-short"]
    # Each stand-in wrote no report: an error naming its output, in the order given.
    assert [r.name for r in results] == ["short", "longer", "also-short", "longest"]
    assert all("before writing its report" in (r.error or "") for r in results)
