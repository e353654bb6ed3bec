"""A step carries its checks: made inside its block, they are its; its answer names them.

The stage starts no process here: steps, checks and what the listeners hear are all it does.
"""

from __future__ import annotations

from pathlib import Path

from scenarios.checker.expectations import check
from scenarios.engine.events import Checked, Event, StepEnded, StepStarted
from scenarios.engine.settings import RunSettings
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step

KILL = Step("Kill the app", happens="kill -9", checks=("replayed",))
LATER = Step("Start Kafka", happens="a broker", checks=("earliest never moved",))


def _stage(root: Path, heard: list[Event]) -> Stage:
    return Stage("test", RunSettings(), root, listeners=[heard.append])


def test_checks_made_in_a_block_are_its_step_and_the_listeners_hear_them_in_order(
    tmp_path: Path,
) -> None:
    heard: list[Event] = []
    with _stage(tmp_path / "run", heard) as stage:
        with stage.step(KILL):
            stage.expect(check("replayed", True, "once", "once"))
        stage.expect(check("between steps", True, "x", "x"))
    assert [(c.step, c.name) for c in stage.checks] == [
        ("Kill the app", "replayed"),
        ("", "between steps"),
    ]
    kinds = [type(e).__name__ for e in heard if isinstance(e, (StepStarted, Checked, StepEnded))]
    assert kinds == ["StepStarted", "Checked", "StepEnded", "Checked"]
    assert stage.checks[0].label == "Kill the app › replayed"


def test_an_answer_whose_check_was_never_made_fails_the_scenario(tmp_path: Path) -> None:
    with _stage(tmp_path / "run", []) as stage:
        with stage.step(KILL):
            stage.say("killed, but nothing checked")
    [missing] = stage.checks
    assert not missing.held and missing.step == "Kill the app"
    assert missing.name == "the answer's check was made: replayed"


def test_a_check_made_later_for_an_earlier_step_answers_it(tmp_path: Path) -> None:
    with _stage(tmp_path / "run", []) as stage:
        with stage.step(LATER):
            pass
        with stage.step(KILL):
            stage.expect(check("replayed", True, "once", "once"))
            stage.expect(check("earliest never moved", True, "0", "0"), step=LATER)
    assert all(c.held for c in stage.checks)
    assert [c.label for c in stage.checks] == [
        "Kill the app › replayed",
        "Start Kafka › earliest never moved",
    ]


def test_a_step_that_failed_is_not_held_to_its_answer(tmp_path: Path) -> None:
    try:
        with _stage(tmp_path / "run", []) as stage:
            with stage.step(KILL):
                raise RuntimeError("the app never started")
    except RuntimeError:
        pass
    assert stage.checks == []  # the error is the verdict; no second failure about the answer
