"""What a person sees of a step on a terminal: the panel holds every section, not an empty box.

Off a terminal the narration is plain lines, which every other test reads; these render through
a forced-terminal console, as a learner's terminal does (rich draws panels only there).
"""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

import pytest

import scenarios.catalog
from scenarios.report.narration import Narrator, Step

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CATALOG = Path(scenarios.catalog.__file__).parent


def _screen(step: Step, width: int = 100) -> str:
    """The step as a terminal shows it, panel borders removed and whitespace collapsed."""
    out = io.StringIO()
    narrator = Narrator(stream=out, rich=True)
    narrator._console.width = width  # a fixed width, as a real terminal has one
    narrator.begin("demo", "a title", "a summary")
    narrator.step(step)
    raw = out.getvalue()
    assert "\x1b[" in raw, "not rendered as on a terminal"
    lines = [line.strip().strip("│╭╮╰╯─").strip() for line in _ANSI.sub("", raw).splitlines()]
    return " ".join(" ".join(lines).split())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_step_on_a_terminal_shows_every_section() -> None:
    step = Step("Kill the app", happens="kill -9 the driver", watch="the batch line stops",
                why="offsets/N is written before the batch runs",
                production="let the supervisor restart it")
    screen = _screen(step)
    for label, text in step.sections():
        assert f"{label}: {_flat(text)}" in screen


def _literal(node: ast.expr) -> str | None:
    """A string argument as the learner would read it; f-string values shown as {…}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    return None


def _catalog_steps() -> list[tuple[str, Step]]:
    """Every `Step(...)` written in the catalog whose words can be read without running it."""
    found = []
    for module in sorted(_CATALOG.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Step"):
                continue
            args = [_literal(a) for a in node.args]
            kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg}
            if None in args or None in kwargs.values() or not args:
                continue
            found.append((f"{module.stem}:{node.lineno}", Step(*args, **kwargs)))
    return found


_STEPS = _catalog_steps()


def test_the_catalog_has_steps_to_render() -> None:
    assert len(_STEPS) >= 50


@pytest.mark.parametrize("where,step", _STEPS, ids=[w for w, _ in _STEPS])
def test_every_catalog_step_shows_its_sections_on_a_terminal(where: str, step: Step) -> None:
    screen = _screen(step, width=160)
    for label, text in step.sections():
        assert f"{label}: {_flat(text)}"[:120] in screen, f"{where}: {label} missing"
