"""Predict, then look: nothing a learner reads before a step's Enter gives its answer away.

Before Enter a guided run shows the scenario's opening line (`Scenario.about`), every earlier
step whole, and this step's title and question. Each step names the words that would give its
answer away (`Step.giveaway`); none may stand in anything shown before its Enter. The opening
line says what a scenario is about; its lesson (`title`, `summary`) comes after its last step.
"""

from __future__ import annotations

import pytest

from scenarios.engine.step import Step
from scenarios.registry import all_scenarios
from scenarios.report.story import WrittenStep, written_steps

_STEPS = written_steps()
_ABOUT = {s.name: s.about for s in all_scenarios()}


def shown_before_enter(about: str, earlier: list[Step], step: Step) -> str:
    """All a learner has read when the step's question waits for Enter."""
    parts = [about]
    for before in earlier:
        parts += [before.title] + [text for _, text in before.sections()]
    parts.append(step.before_enter())
    return "\n".join(parts).lower()


def spoiled_by(about: str, earlier: list[Step], step: Step) -> list[str]:
    shown = " ".join(shown_before_enter(about, earlier, step).split())
    return [word for word in step.giveaway or () if " ".join(word.lower().split()) in shown]


def _cases() -> list[tuple[WrittenStep, list[Step]]]:
    cases, earlier_of = [], {}
    for written in _STEPS:
        earlier = earlier_of.setdefault(written.scenario, [])
        cases.append((written, list(earlier)))
        earlier.append(written.step)
    return cases


_CASES = _cases()


@pytest.mark.parametrize(
    "written,earlier", _CASES, ids=[f"{w.scenario}:{w.module}:{w.line}" for w, _ in _CASES]
)
def test_nothing_shown_before_enter_gives_the_answer_away(
    written: WrittenStep, earlier: list[Step]
) -> None:
    assert written.step.giveaway, "name the words that would give the answer away (giveaway=...)"
    assert spoiled_by(_ABOUT[written.scenario], earlier, written.step) == []


def test_every_scenario_opens_with_what_it_is_about() -> None:
    assert [s.name for s in all_scenarios() if not s.about] == []


def test_the_rule_catches_an_answer_in_a_title_in_the_opening_line_and_in_an_earlier_step() -> None:
    step = Step(
        "Restart (a refused change)", happens="", question="Will it start?", giveaway=("refused",)
    )
    assert spoiled_by("", [], step) == ["refused"]
    clean = Step(
        "Restart with the change", happens="", question="Will it start?", giveaway=("refused",)
    )
    assert spoiled_by("", [], clean) == []
    assert spoiled_by("a change Spark refused", [], clean) == ["refused"]
    told = Step("Before", happens="", answer="it will be refused later")
    assert spoiled_by("", [told], clean) == ["refused"]
