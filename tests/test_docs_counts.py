"""The README's and workshop.md's counts and times follow the catalog and the measured table.

The number of scenarios the README names, and the longest one with its minutes, come from the
registered scenarios (`Scenario.takes`, measured); the workshop's module times come from the
measured table (scenarios/report/workshop_plan.py), so a count or time written by hand that
the code no longer holds fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from scenarios.engine.scenario import said_minutes
from scenarios.registry import all_scenarios

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
NUMBERS = {
    20: "twenty",
    21: "twenty-one",
    22: "twenty-two",
    23: "twenty-three",
    24: "twenty-four",
    25: "twenty-five",
    26: "twenty-six",
    27: "twenty-seven",
    28: "twenty-eight",
    29: "twenty-nine",
    30: "thirty",
    31: "thirty-one",
    32: "thirty-two",
}


def test_the_readme_counts_the_scenarios_there_are() -> None:
    count = len(all_scenarios())
    written = set(re.findall(r"\b(twenty(?:-\w+)?|thirty(?:-\w+)?) scenarios\b", README))
    written |= set(re.findall(r"\bfor all (twenty(?:-\w+)?|thirty(?:-\w+)?)\b", README))
    assert written == {NUMBERS[count]}, f"the README counts {written}; the catalog has {count}"


def test_the_readme_names_the_longest_scenario_with_its_minutes() -> None:
    longest = max(all_scenarios(), key=said_minutes)
    said = re.search(r"to about ([0-9.]+) min for ([a-z-]+), with `--fast`", README)
    assert said is not None, "the README no longer says which scenario is the longest"
    assert (said.group(2), float(said.group(1))) == (longest.name, said_minutes(longest))
