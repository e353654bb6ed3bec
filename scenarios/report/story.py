"""Each scenario's story as its code tells it, read without running it: for docs and checks.

A scenario declares its steps once, as `Step(...)` calls in its module (scenarios/catalog/).
This reads those calls from the source (Python's `ast`): the title, what happens, the question
and its answer, why, and what to do in production. Words a step fills in at run time (an
f-string's values) read as `{…}`. docs/workshop-questions.md is rendered from here, so a trainer's
question sheet cannot drift from what `run --guided` asks; a fast test fails when it is stale.

Usage:
    uv run python -m scenarios.report.story > docs/workshop-questions.md
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from scenarios.catalog import SCENARIO_MODULES
from scenarios.engine.step import Step

__all__ = ["WrittenStep", "scenario_files", "written_steps", "questions_markdown"]

RUNTIME = "{…}"


@dataclass(frozen=True)
class WrittenStep:
    """A `Step(...)` of a scenario module, where it is written, and its words."""

    scenario: str
    module: str
    line: int
    step: Step


def literal(node: ast.expr) -> str | None:
    """A string argument as the learner would read it; f-string values shown as {…}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else RUNTIME for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left), literal(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        return RUNTIME  # a value the code computes: shown as {…}, as in an f-string
    return None


def _module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    return Path(spec.origin)


def scenario_files() -> list[tuple[str, list[Path]]]:
    """Each scenario's name and the files its steps are written in, in `run all`'s order: its
    module, and the modules of a catalog sub-package it imports (the museum's exhibits)."""
    found = []
    for module in SCENARIO_MODULES:
        path = _module_file(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        files = [path]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("scenarios.catalog.")
                and node.module.count(".") == 2
            ):
                package = _module_file(node.module)
                if package.name == "__init__.py":  # a sub-package, not another scenario
                    files += [f for f in sorted(package.parent.glob("*.py")) if f not in files]
        found.append((importlib.import_module(module).SCENARIO.name, files))
    return found


def written_steps() -> list[WrittenStep]:
    """Every step of every scenario whose words can be read without running it, in `run all`'s
    order and, within a file, in the order written."""
    found = []
    for name, files in scenario_files():
        for path in files:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = sorted(
                (
                    n
                    for n in ast.walk(tree)
                    if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Step"
                ),
                key=lambda n: n.lineno,
            )
            for call in calls:
                args = [literal(a) for a in call.args]
                kwargs = {k.arg: literal(k.value) for k in call.keywords if k.arg}
                if not args or None in args or None in kwargs.values():
                    continue
                found.append(WrittenStep(name, path.stem, call.lineno, Step(*args, **kwargs)))
    return found


def questions_markdown() -> str:
    """The trainer's question sheet: per scenario, each step's question, answer and rule."""
    out = [
        "# Workshop questions, scenario by scenario",
        "",
        "Rendered from the scenarios' code by `uv run python -m scenarios.report.story >",
        "docs/workshop-questions.md`; do not edit by hand. `{…}` is a number the run fills in",
        "(it is on screen when `run --guided` asks). The plan: [workshop.md](workshop.md).",
        "",
    ]
    scenario = None
    for written in written_steps():
        if written.scenario != scenario:
            scenario = written.scenario
            out += [f"## {scenario}", ""]
        step = written.step
        out.append(f"- **{step.title}**")
        for label, text in (
            ("Ask", step.question),
            ("Answer", step.answer),
            ("Rule", step.why),
            ("In production", step.production),
        ):
            if text:
                out.append(f"  - {label}: {' '.join(text.split())}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(questions_markdown(), end="")
