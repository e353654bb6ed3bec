"""What a person sees of a step on a terminal: its question before it runs, its answer after.

Off a terminal the narration is plain lines, which every other test reads; these render through
a forced-terminal console, as a learner's terminal does (rich draws panels and waits only there).
"""

from __future__ import annotations

import ast
import io
import re

import pytest

from scenarios.engine.step import Step
from scenarios.report.narration import Narrator
from scenarios.report.story import scenario_files, written_steps

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CATALOG_FILES = [f for _, files in scenario_files() for f in files]


def _screen(step: Step, width: int = 100) -> str:
    """The step as a terminal shows it, panel borders removed and whitespace collapsed."""
    out = io.StringIO()
    narrator = Narrator(stream=out, rich=True)
    narrator._console.width = width  # a fixed width, as a real terminal has one
    narrator.begin("demo", "what it is about")
    narrator.step(step)
    narrator.end_step()
    return _unframed(out.getvalue())


def _unframed(raw: str) -> str:
    """A terminal's text without colour codes and panel borders, whitespace collapsed."""
    assert "\x1b[" in raw, "not rendered as on a terminal"
    lines = [line.strip().strip("│╭╮╰╯─").strip() for line in _ANSI.sub("", raw).splitlines()]
    return " ".join(" ".join(lines).split())


def _flat(text: str) -> str:
    return " ".join(text.split())


_KILL = Step(
    "Kill the app",
    happens="kill -9 the driver",
    watch="the batch line stops",
    why="offsets/N is written before the batch runs",
    production="let the supervisor restart it",
    question="which value does the app write first after its restart?",
    answer="the first value of the batch it was writing: batch N runs again",
)


def test_a_step_on_a_terminal_shows_every_section() -> None:
    screen = _screen(_KILL)
    for label, text in _KILL.sections():
        assert f"{label}: {_flat(text)}" in screen


def _guided(**pacing: object) -> tuple[io.StringIO, list[tuple[str, int]]]:
    """Two steps with a check each through a forced-terminal Narrator; every wait is logged
    with how much of the screen was written when it began."""
    out = io.StringIO()
    waits: list[tuple[str, int]] = []
    narrator = Narrator(
        stream=out,
        rich=True,
        **pacing,  # type: ignore[arg-type]
        ask=lambda prompt: waits.append(("Enter", len(out.getvalue()))) or "",
        pause=lambda seconds: waits.append((f"{seconds:g} s", len(out.getvalue()))),
    )
    narrator._console.width = 160
    narrator.begin("demo", "what it is about")
    narrator.step(_KILL)
    narrator.say("killed")
    narrator.check("replayed", True, "batch 3 twice")
    narrator.step(
        Step(
            "Stop it",
            happens="SIGTERM",
            question="does it exit 0?",
            answer="yes",
            why="the gate lets the batch commit",
            production="a gate of your own",
        )
    )
    narrator.check("exit 0", True, "exited 0")
    narrator.end_step()
    return out, waits


def test_guided_asks_first_waits_then_answers_only_after_the_checks() -> None:
    out, waits = _guided(guided=True)
    screen = _unframed(out.getvalue())
    order = [
        "Step 1: Kill the app",
        f"Question: {_KILL.question}",
        "What happens: kill -9 the driver",
        "Watch: the batch line stops",
        "killed",
        "PASS replayed",
        f"Answer: {_KILL.answer}",
        "Why: offsets/N",
        "In production: let the supervisor",
        "Step 2: Stop it",
        "Question: does it exit 0?",
        "What happens: SIGTERM",
        "PASS exit 0",
        "Answer: yes",
        "Why: the gate",
        "In production: a gate of your own",
    ]
    places = [screen.find(text) for text in order]
    assert -1 not in places, [t for t, p in zip(order, places) if p == -1]
    assert places == sorted(places)
    assert screen.count(f"Answer: {_KILL.answer}") == 1
    # Each wait comes after its question and before the step's first remark.
    raw = _ANSI.sub("", out.getvalue())
    assert [w for w, _ in waits] == ["Enter", "Enter"]
    # Before Enter: the title and the question only; what happens and what to watch after it.
    for (_, at), question, remark in zip(
        waits, ["which value does", "does it exit 0?"], ["What happens: kill", "What happens: SIG"]
    ):
        written = _ANSI.sub("", out.getvalue()[:at])
        assert question in written and remark not in written[written.find(question) :]
        assert remark in raw


def test_projector_paces_itself_instead_of_waiting_for_enter() -> None:
    out, waits = _guided(projector_sec=20)
    assert [w for w, _ in waits] == ["20 s", "20 s"]
    assert _unframed(out.getvalue()).count("think about it: the step runs in 20 s") == 2


def test_off_a_terminal_nothing_waits_and_the_order_is_the_same() -> None:
    out = io.StringIO()

    def refuse(*_: object) -> str:
        raise AssertionError("waited off a terminal")

    narrator = Narrator(guided=True, projector_sec=5, stream=out, ask=refuse, pause=refuse)
    narrator.begin("demo", "what it is about")
    narrator.step(_KILL)
    narrator.check("replayed", True, "batch 3 twice")
    narrator.end_step()
    lines = out.getvalue().splitlines()
    assert "\x1b[" not in out.getvalue()
    assert lines == [
        "== demo: what it is about",
        "-- Step 1: Kill the app",
        f"   Question: {_KILL.question}",
        "   What happens: kill -9 the driver",
        "   Watch: the batch line stops",
        "   PASS replayed: batch 3 twice",
        "-- Step 1: Kill the app: the answer",
        f"   Answer: {_KILL.answer}",
        "   Why: offsets/N is written before the batch runs",
        "   In production: let the supervisor restart it",
    ]


def _catalog_steps() -> list[tuple[str, Step]]:
    """Every `Step(...)` written in the catalog whose words can be read without running it."""
    return [(f"{w.module}:{w.line}", w.step) for w in written_steps()]


_STEPS = _catalog_steps()
# What every step of the catalog must say, however its words are built.
_REQUIRED = ("question", "answer", "production")


def _catalog_calls() -> list[tuple[str, ast.Call]]:
    return [
        (f"{module.stem}:{node.lineno}", node)
        for module in _CATALOG_FILES
        for node in ast.walk(ast.parse(module.read_text()))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Step"
    ]


def test_the_catalog_has_steps_to_render() -> None:
    assert len(_STEPS) >= 50


def test_every_catalog_step_asks_a_question_answers_it_and_says_what_to_do_in_production() -> None:
    lacking = []
    for where, call in _catalog_calls():
        given = {k.arg: k.value for k in call.keywords if k.arg}
        for name in _REQUIRED:
            value = given.get(name)
            if value is None or (isinstance(value, ast.Constant) and not str(value.value).strip()):
                lacking.append(f"{where} {name}")
    assert len(_catalog_calls()) >= 100
    assert lacking == []


@pytest.mark.parametrize("where,step", _STEPS, ids=[w for w, _ in _STEPS])
def test_every_catalog_step_shows_its_sections_on_a_terminal(where: str, step: Step) -> None:
    screen = _screen(step, width=160)
    for label, text in step.sections():
        assert f"{label}: {_flat(text)}"[:120] in screen, f"{where}: {label} missing"
