"""The museum's scenario without processes: its exhibits, how they are chosen and listed, and
that the table and the exhibit modules name the same bugs."""

from __future__ import annotations

import pytest

from scenarios.catalog.known_bugs import chosen_exhibits
from scenarios.catalog.museum import all_exhibits
from scenarios.cli import run_cli
from scenarios.engine.spark_envs import SERVED_LINES
from scenarios.errors import ScenarioError
from scenarios.registry import find_scenarios
from spark_app.lines.known_bug_table import MUSEUM, line_of


def test_every_bug_of_the_table_is_one_exhibit_module() -> None:
    assert sorted(e.name for e in all_exhibits()) == sorted(b.ticket for b in MUSEUM)
    for exhibit in all_exhibits():
        # One that runs has an outcome on every line whose connector is served; one that
        # points names a scenario that exists.
        if exhibit.run is not None:
            assert {line_of(v) for v in SERVED_LINES} <= set(exhibit.bug.lines)
        else:
            assert find_scenarios([exhibit.bug.shown_by])


def test_exhibits_are_chosen_by_ticket_in_the_museums_order() -> None:
    assert chosen_exhibits(None) == [e for e in all_exhibits() if not e.on_request]
    assert [e.name for e in chosen_exhibits("SPARK-57489")] == ["SPARK-57489"]
    chosen = chosen_exhibits("spark-53103, SPARK-55058")
    assert [e.name for e in chosen] == ["SPARK-55058", "SPARK-53103"]
    with pytest.raises(ScenarioError, match="no exhibit SPARK-1.*known: SPARK-12693"):
        chosen_exhibits("SPARK-1")


def test_run_all_includes_the_museum() -> None:
    assert "known-bugs" in [s.name for s in find_scenarios(["all"])]


def test_list_shows_the_exhibits_as_a_group_under_the_museum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("known-bugs "))
    group = lines[at + 1 : at + 1 + len(MUSEUM)]
    assert [line.split()[0] for line in group] == [e.name for e in all_exhibits()]
    assert all(line.startswith("  SPARK-") for line in group)
    assert "shown by short-retention" in next(line for line in group if "SPARK-12693" in line)


def test_exhibits_is_an_option_of_the_museum_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["run", "checkpoint-reset", "--exhibits", "SPARK-55058"]) == 2
    assert "--exhibits is an option of known-bugs" in capsys.readouterr().err


def test_an_unknown_exhibit_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(["run", "known-bugs", "--exhibits", "SPARK-1"])
    assert exit_.value.code == 2
    assert "no exhibit SPARK-1" in capsys.readouterr().err


def test_an_exhibit_shown_elsewhere_sends_the_user_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        run_cli(["run", "known-bugs", "--exhibits", "SPARK-12693"])
    assert (
        "SPARK-12693 is shown by the scenario short-retention: run that" in capsys.readouterr().err
    )
