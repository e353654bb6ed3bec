"""The README's scenarios table is written from the SCENARIOs: what a changed scenario does to it."""

from __future__ import annotations

import dataclasses

import pytest

from scenarios.registry import all_scenarios
from scenarios.report.readme_table import BEGIN, END, main, with_table

README = f"# x\n\n## The scenarios\n\n{BEGIN}\nold rows\n{END}\n\n## More\n"


def test_the_table_follows_the_scenarios_and_keeps_the_rest() -> None:
    scenarios = all_scenarios()[:2]
    text = with_table(README, scenarios)
    assert text.startswith("# x\n\n## The scenarios\n\n" + BEGIN + "\n| scenario | lesson | from |")
    assert text.endswith(END + "\n\n## More\n")
    assert "old rows" not in text
    first = scenarios[0]
    assert (
        f"| [`{first.name}`](docs/scenarios.md#{first.name}) | {first.title} | {first.origin} |"
        in text
    )


def test_a_retitled_scenario_changes_its_row() -> None:
    scenario = dataclasses.replace(all_scenarios()[0], title="a new lesson | with a bar")
    text = with_table(README, [scenario])
    assert "| a new lesson \\| with a bar |" in text
    assert with_table(text, [scenario]) == text  # written twice: the same README


def test_lost_markers_are_said_in_one_line() -> None:
    with pytest.raises(ValueError, match="README.md has lost a rendered block's markers") as lost:
        with_table("# no table here\n", all_scenarios())
    assert "\n" not in str(lost.value) and BEGIN in str(lost.value)


def test_check_says_fresh_for_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0
    assert "fresh" in capsys.readouterr().out
