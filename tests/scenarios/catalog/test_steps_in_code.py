"""The catalog tells each step as a block that carries its checks, and says its lesson honestly.

Read from the code, without running a scenario (the story reader, scenarios/report/story.py):
- every `stage.step(...)` opens a `with` block, so the checks made in it belong to it;
- a check made for another step than the one it runs in (`stage.expect(..., step=...)`) is rare;
- "Start Kafka and the producer" is declared once (scenarios/catalog/steps.py) and named where
  used, not written out again;
- every step says which checks its answer states (`Step.checks`), and each is a check the code
  makes: a name written in the scenario's files or in the checker and engine that make checks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from scenarios.report.story import RUNTIME, WrittenStep, scenario_files, written_steps

ROOT = Path(__file__).resolve().parents[3]
CATALOG = ROOT / "scenarios" / "catalog"
_FILES = sorted(CATALOG.rglob("*.py"))
# Where checks other than the catalog's own are named: the checker's and the stage's.
_CHECK_MAKERS = sorted((ROOT / "scenarios" / "checker").rglob("*.py")) + sorted(
    (ROOT / "scenarios" / "engine").rglob("*.py")
)
_STEPS = written_steps()


def _stage_step_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "step"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "stage"
    ]


def test_every_step_is_a_with_block() -> None:
    bare = []
    for path in _FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        opened = {
            id(item.context_expr)
            for node in ast.walk(tree)
            if isinstance(node, ast.With)
            for item in node.items
        }
        bare += [f"{path.stem}:{c.lineno}" for c in _stage_step_calls(tree) if id(c) not in opened]
    assert bare == []


def test_the_rule_finds_a_step_outside_a_with_block() -> None:
    tree = ast.parse("with stage.step(A):\n    pass\nstage.step(B)\n")
    opened = {
        id(i.context_expr) for n in ast.walk(tree) if isinstance(n, ast.With) for i in n.items
    }
    assert [c.lineno for c in _stage_step_calls(tree) if id(c) not in opened] == [3]


def test_a_check_made_for_another_step_is_rare() -> None:
    """`phase=` is gone; `stage.expect(..., step=...)` is for a check that answers an earlier
    step's question and can only be made later (at most 10 in the catalog)."""
    elsewhere = [
        f"{path.stem}:{node.lineno}"
        for path in _FILES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", "") == "expect"
        and any(k.arg in ("step", "phase") for k in node.keywords)
    ]
    assert len(elsewhere) <= 10, elsewhere


def test_start_kafka_and_the_producer_is_written_at_most_three_times() -> None:
    written = sum(
        p.read_text(encoding="utf-8").count('"Start Kafka and the producer') for p in _FILES
    )
    assert written <= 3


def _literals(paths: list[Path]) -> list[str]:
    """Every string written in these files, an f-string's values read as RUNTIME."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
            elif isinstance(node, ast.JoinedStr):
                found.append(
                    "".join(
                        v.value if isinstance(v, ast.Constant) else RUNTIME for v in node.values
                    )
                )
    return found


def _made_somewhere(name: str, literals: list[str]) -> bool:
    """A check name (its run-time parts as RUNTIME) matches a string the code writes."""
    pattern = re.compile(".*".join(re.escape(part) for part in name.split(RUNTIME)), re.DOTALL)
    return any(
        pattern.fullmatch(text)
        or pattern.fullmatch(text.replace(RUNTIME, "x"))
        or re.fullmatch(".*".join(re.escape(p) for p in text.split(RUNTIME)), name)
        for text in literals
    )


_FILES_OF = dict(scenario_files())


@pytest.mark.parametrize(
    "written", _STEPS, ids=[f"{w.scenario}:{w.module}:{w.line}" for w in _STEPS]
)
def test_every_answer_names_the_checks_it_states_and_each_is_made(written: WrittenStep) -> None:
    assert written.step.checks is not None, "say which checks the answer states (checks=...)"
    literals = _literals([*_FILES_OF[written.scenario], *_CHECK_MAKERS])
    unknown = [n for n in written.step.checks if not _made_somewhere(n, literals)]
    assert unknown == [], "no check of that name is made in the code"


def test_the_rule_refuses_a_check_nobody_makes() -> None:
    literals = ["caught up exactly once", f"broker {RUNTIME} runs {RUNTIME}"]
    assert _made_somewhere("caught up exactly once", literals)
    assert _made_somewhere(f"broker {RUNTIME} runs 4.1.2", literals)
    assert not _made_somewhere("earliest stays 0", literals)
