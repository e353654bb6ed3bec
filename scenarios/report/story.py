"""Each scenario's story as its code tells it, read without running it: for docs and checks.

A scenario declares its steps once, in its module (scenarios/catalog/): a `Step(...)` written
where it runs, or a step said by many scenarios (scenarios/catalog/steps.py) with this scenario's
words. This reads them from the source (Python's `ast`) in the order the code runs them: it
walks `run()` statement by statement, into the module's own functions (and the museum's
exhibits) where they are called, taking both sides of a condition, so a step that only some
runs take is there too (`WrittenStep.conditional`). Words the code names by a constant read as
that constant's words (`CONDITION` reads `KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE`); a value
only the run knows (a timing, a count) reads as `{…}`.

docs/workshop-questions.md and the heads of docs/scenarios.md are rendered from here, so a
trainer's sheet cannot drift from what `run --guided` asks; fast tests fail when either is stale.

Usage:
    uv run python -m scenarios.report.story > docs/workshop-questions.md
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from scenarios.engine.step import Step
from scenarios.registry import SCENARIO_MODULES

__all__ = [
    "RUNTIME",
    "WrittenStep",
    "questions_markdown",
    "scenario_files",
    "written_steps",
]

RUNTIME = "{…}"
# The module whose functions declare the steps many scenarios say (each call gives its words).
SHARED_STEPS = "scenarios.catalog.steps"
_CATALOG = "scenarios.catalog."


@dataclass(frozen=True)
class WrittenStep:
    """A step of a scenario as written in its code: where, its words, and whether every run
    takes it (False: it sits under a condition, a loop's else or an exception handler)."""

    scenario: str
    module: str
    line: int
    step: Step
    conditional: bool = False


# -- reading words ------------------------------------------------------------------------------
def _value(node: ast.expr, scope: dict[str, Any]) -> Any:
    """What `node` reads as without running the scenario: a string, a tuple of them, or RUNTIME
    for anything only the run knows."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(v.value) if isinstance(v, ast.Constant) else _formatted(v, scope)
            for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, scope), _value(node.right, scope)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return RUNTIME
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(e, scope) for e in node.elts)
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return _constant(node, scope)
    return RUNTIME


def _formatted(node: ast.expr, scope: dict[str, Any]) -> str:
    """An f-string's `{…}` part: a constant's words, or RUNTIME."""
    if not isinstance(node, ast.FormattedValue) or node.format_spec is not None:
        return RUNTIME  # a format spec (`:g`, `:,`) is a number's: the run's
    value = _constant(node.value, scope)
    return value if isinstance(value, str) else str(value)


def _constant(node: ast.expr, scope: dict[str, Any]) -> Any:
    """A module-level constant's value (`CONDITION`, `BUG.ticket`); RUNTIME for a name the
    module does not hold (a local, a parameter) or for anything that would call code."""
    if any(isinstance(n, (ast.Call, ast.Lambda)) for n in ast.walk(node)):
        return RUNTIME
    try:
        value = eval(compile(ast.Expression(node), "<story>", "eval"), dict(scope))  # noqa: S307
    except Exception:  # a local name, an attribute of a run-time object: the run's words
        return RUNTIME
    if isinstance(value, (str, int, float)):
        return value
    return RUNTIME


def _text(value: Any) -> str:
    return value if isinstance(value, str) else RUNTIME


def _step_of(call: ast.Call, scope: dict[str, Any], factory: Any = None) -> Step | None:
    """The Step a `Step(...)` call, or a shared step's factory call, makes from its words."""
    args = [_value(a, scope) for a in call.args]
    kwargs = {k.arg: _value(k.value, scope) for k in call.keywords if k.arg}
    kwargs = {
        k: tuple(_text(x) for x in v) if isinstance(v, tuple) else _text(v)
        for k, v in kwargs.items()
    }
    try:
        return (factory or Step)(*(_text(a) for a in args), **kwargs)
    except TypeError:
        return None  # not a step's words (an argument only the run passes)


# -- walking the code in the order it runs ----------------------------------------------------
@dataclass
class _Module:
    name: str
    path: Path
    tree: ast.Module
    scope: dict[str, Any]

    @classmethod
    def load(cls, name: str) -> _Module:
        module: ModuleType = importlib.import_module(name)
        path = Path(module.__file__ or "")
        return cls(name, path, ast.parse(path.read_text(encoding="utf-8")), vars(module))

    def function(self, name: str) -> ast.FunctionDef | None:
        return next(
            (n for n in self.tree.body if isinstance(n, ast.FunctionDef) and n.name == name),
            None,
        )


class _Walk:
    """Walks one scenario's code from its `run`, yielding its steps in the order written to run."""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.found: list[WrittenStep] = []
        self._stack: list[tuple[str, str]] = []

    def function(self, module: _Module, name: str) -> None:
        node = module.function(name)
        if node is None or (module.name, name) in self._stack:
            return
        self._stack.append((module.name, name))
        self._statements(module, node.body, conditional=False, local={})
        self._stack.pop()

    def _statements(
        self, module: _Module, body: list[ast.stmt], conditional: bool, local: dict[str, Any]
    ) -> None:
        for statement in body:
            self._statement(module, statement, conditional, local)

    def _statement(
        self, module: _Module, node: ast.stmt, conditional: bool, local: dict[str, Any]
    ) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            local[node.name] = node  # a helper defined here: walked where it is called
            return
        if isinstance(node, ast.If):
            self._expression(module, node.test, conditional, local)
            self._statements(module, node.body, True, local)
            self._statements(module, node.orelse, True, local)
        elif isinstance(node, (ast.For, ast.While)):
            self._expression(module, getattr(node, "iter", None) or node.test, conditional, local)
            self._statements(module, node.body, conditional, local)
            self._statements(module, node.orelse, True, local)
        elif isinstance(node, ast.With):
            for item in node.items:
                self._expression(module, item.context_expr, conditional, local)
            self._statements(module, node.body, conditional, local)
        elif isinstance(node, ast.Try):
            self._statements(module, node.body, conditional, local)
            for handler in node.handlers:
                self._statements(module, handler.body, True, local)
            self._statements(module, node.orelse, conditional, local)
            self._statements(module, node.finalbody, conditional, local)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._expression(module, child, conditional, local)

    def _expression(
        self, module: _Module, node: ast.expr | None, conditional: bool, local: dict[str, Any]
    ) -> None:
        """A call's arguments first, then the call: the order Python evaluates them in."""
        if node is None or isinstance(node, ast.Lambda):
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expression(module, child, conditional, local)
            elif isinstance(child, ast.keyword):
                self._expression(module, child.value, conditional, local)
        if isinstance(node, ast.Call):
            self._call(module, node, conditional, local)

    def _call(
        self, module: _Module, call: ast.Call, conditional: bool, local: dict[str, Any]
    ) -> None:
        func = call.func
        name = func.id if isinstance(func, ast.Name) else ""
        if name == "Step":
            self._found(module, call, _step_of(call, module.scope), conditional)
            return
        factory = _shared_step(func, module)
        if factory is not None:
            self._found(module, call, _step_of(call, module.scope, factory), conditional)
            return
        if _is_stage_step(func) and call.args and isinstance(call.args[0], ast.Name):
            held = module.scope.get(call.args[0].id)
            if isinstance(held, Step):  # a step the module declares once, by name
                self._found(module, call, held, conditional)
            return
        if name in local:
            self._stack.append((module.name, name))
            self._statements(module, local[name].body, conditional, {})
            self._stack.pop()
        elif name and module.function(name) is not None:
            self.function(module, name)
        elif name:
            imported = module.scope.get(name)
            owner = getattr(imported, "__module__", "") or ""
            if owner.startswith(_CATALOG) and owner != SHARED_STEPS and callable(imported):
                self.function(_Module.load(owner), name)

    def _found(self, module: _Module, call: ast.Call, step: Step | None, conditional: bool) -> None:
        if step is not None:
            self.found.append(
                WrittenStep(self.scenario, module.path.stem, call.lineno, step, conditional)
            )


def _is_stage_step(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "step"


def _shared_step(func: ast.expr, module: _Module) -> Any:
    """The shared steps' factory a call names (`steps.start_kafka`, or the imported name)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = module.scope.get(func.value.id)
        if isinstance(owner, ModuleType) and owner.__name__ == SHARED_STEPS:
            return getattr(owner, func.attr, None)
    if isinstance(func, ast.Name):
        held = module.scope.get(func.id)
        if callable(held) and getattr(held, "__module__", "") == SHARED_STEPS:
            return held
    return None


def _cases(module: _Module) -> list[str]:
    """The case modules a scenario runs one by one (the museum's exhibits), in their order."""
    for node in module.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(_CATALOG):
            package = importlib.import_module(node.module)
            if hasattr(package, "EXHIBIT_MODULES"):
                return list(package.EXHIBIT_MODULES)
    return []


def _module_file(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    return Path(spec.origin)


def scenario_files() -> list[tuple[str, list[Path]]]:
    """Each scenario's name and the files its story is written in, in `run all`'s order: its
    module, its cases' modules (the museum's exhibits) and the shared steps it names."""
    found = []
    for name in SCENARIO_MODULES:
        module = _Module.load(name)
        files = [module.path, *(_module_file(case) for case in _cases(module))]
        found.append((module.scope["SCENARIO"].name, files))
    return found


def _steps_of(name: str) -> Iterator[WrittenStep]:
    module = _Module.load(name)
    walk = _Walk(module.scope["SCENARIO"].name)
    walk.function(module, "run")
    for case in _cases(module):
        exhibit = _Module.load(case)
        runs = getattr(exhibit.scope.get("EXHIBIT"), "run", None)
        if runs is not None:
            walk.function(exhibit, runs.__name__)
    yield from walk.found


def written_steps() -> list[WrittenStep]:
    """Every step of every scenario, in `run all`'s order and, within a scenario, in the order
    its code runs them."""
    return [step for name in SCENARIO_MODULES for step in _steps_of(name)]


def questions_markdown() -> str:
    """The trainer's question sheet: per scenario, each step's question, what to watch while it
    runs, its answer and its rule."""
    out = [
        "# Workshop questions, scenario by scenario",
        "",
        "Rendered from the scenarios' code by `uv run python -m scenarios.report.story >",
        "docs/workshop-questions.md`; do not edit by hand. Every step is here, in the order the",
        "code runs it; a step marked *(some runs)* runs only when its condition holds.",
        "`{…}` is a value only the run knows (a timing, an offset, a count): on screen when",
        "`run --guided` asks. The plan: [workshop.md](workshop.md).",
        "",
    ]
    scenario = None
    for written in written_steps():
        if written.scenario != scenario:
            scenario = written.scenario
            out += [f"## {scenario}", ""]
        step = written.step
        some = " *(some runs)*" if written.conditional else ""
        out.append(f"- **{step.title}**{some}")
        for label, text in (
            ("Ask", step.question),
            ("Watch", step.watch),
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
