"""docs/workshop.md's plans are rendered from a measured run, and the day keeps its slack."""

from __future__ import annotations

import json

from scenarios.exercises import find_exercise
from scenarios.report.workshop_plan import (
    DAY_MIN,
    NINETY,
    NINETY_MIN,
    PAGE,
    PLAN,
    SLACK_MIN,
    TIMES,
    Module,
    plan_table,
    total_minutes,
    with_plans,
)


def _times() -> dict[str, dict[str, float]]:
    return json.loads(TIMES.read_text())


def test_the_page_holds_the_plans_its_measured_times_render() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert with_plans(page, _times()) == page, (
        "docs/workshop.md's plans are not docs/data/workshop-times.json's: "
        "uv run python -m scenarios.report.workshop_plan measure REPORT_DIR"
    )


def test_every_scenario_of_the_plans_was_measured() -> None:
    times = _times()
    planned = {s for plan in (PLAN, NINETY) for m in plan for s in m.scenarios}
    assert planned - set(times) == set()


def test_each_plan_keeps_its_slack() -> None:
    times = _times()
    assert total_minutes(PLAN, times) <= DAY_MIN - SLACK_MIN
    assert total_minutes(NINETY, times) <= NINETY_MIN


def test_the_plans_exercises_are_the_exercises_as_they_state_themselves() -> None:
    for module in (m for plan in (PLAN, NINETY) for m in plan if m.exercise):
        exercise = find_exercise(module.exercise)
        assert (module.exercise_title, module.exercise_min) == (exercise.title, exercise.minutes)


def test_an_exercise_has_a_row_of_its_own_with_its_stated_minutes() -> None:
    times = {"chaos": {"seconds": 60.0, "steps": 4}}
    plan = [
        Module(
            "6. Chaos",
            "run chaos",
            ("chaos",),
            8,
            "idempotent",
            exercise="fix-forward",
            exercise_title="get past it",
            exercise_min=8.0,
        )
    ]
    lines = plan_table(plan, times, NINETY_MIN).splitlines()
    # 1 min run + 4 pauses + 8 talk = 13; then the exercise, then the end with what is left.
    assert lines[2].startswith("| 0:00 | 6. Chaos | 13 (5 + 8) |")
    minutes = 8
    assert lines[3].startswith(f"| 0:13 | your turn: `fix-forward` (exercises.md) | {minutes:.0f}")
    assert "scenarios exercise fix-forward" in lines[3]
    assert lines[4].startswith(f"| 0:{13 + minutes:.0f} | end; slack {90 - 13 - minutes:.0f} min")
    assert "in 90 minutes" in lines[4]


def test_the_puzzle_comes_before_the_wrap_up_with_its_measured_play() -> None:
    puzzle, wrap_up = PLAN[-2], PLAN[-1]
    assert "puzzle" in puzzle.command and puzzle.play_sec > 0
    assert wrap_up.title.startswith("wrap-up")
    # Its minutes are the measured play and the room's own time, in the row's split.
    row = next(line for line in plan_table(PLAN, _times()).splitlines() if "the puzzle" in line)
    play = f"{puzzle.play_sec / 60:.0f}"
    assert f"({play} + {puzzle.talk_min:.0f}) | `{puzzle.command}` |" in row
