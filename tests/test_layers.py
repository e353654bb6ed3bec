"""The layers only look down (docs/architecture.md#the-packages).

- launch/ starts the apps for everyone above it and reads none of them: nothing of scenarios/,
  benchmarks/ or tests/;
- no benchmark reads the scenarios to start, watch or stop a process (launch/ does that); the
  three that measure the scenarios themselves read only what they measure;
- nothing in the engine, the catalog, the report or the checker imports the run layer
  (scenarios/run/): it chooses and executes runs, and is the one that reads them all; nor does
  the demo, and doctor reads only its jar prefetch (what a run fetches before it starts);
- no scenario module imports another (a scenario is read alone; what two share is a move of
  the Stage or a pure helper of the checker); the museum's exhibits are cases of one scenario,
  known-bugs, so they and known_bugs.py may read the museum's shared modules;
- the checker is pure: it reads none of the engine, the run layer, the report or the catalog.

Read from the same import graph as tests/test_import_cycles.py: every import counts.
"""

from __future__ import annotations

import ast

import pytest

from tests.test_import_cycles import REPO, import_graph

GRAPH = import_graph()

# What a benchmark may still read of the scenarios, and why: none of it starts a process.
BENCHMARKS_READING_SCENARIOS = {
    # The catalog it profiles: run all's order, each scenario's `takes`, LONG_RUN_SEC.
    "benchmarks.run_profile": {"scenarios.registry", "scenarios.engine.scenario"},
    # A checkpoint's size, measured as checkpoint-growth measures it.
    "benchmarks.state_compare": {
        "scenarios.checker.folder_usage",
        "scenarios.engine.observers.checkpoint_size",
    },
    "benchmarks.store_compare": {
        "scenarios.checker.folder_usage",
        "scenarios.engine.observers.checkpoint_size",
    },
    # The one text function that writes a rendered block between its markers (pure text).
    "benchmarks.live_page": {"scenarios.report.rewrite"},
}


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _imports_into(importers: str, targets: str) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, imported in GRAPH.items()
        if _in(module, importers)
        for target in imported
        if _in(target, targets)
    )


def _every_import(package: str) -> list[str]:
    """`module -> imported` for every absolute import a module of `package` writes, the
    project's or not (tests/ is no package of the import graph, so it is read here)."""
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found += [f"{module} -> {alias.name}" for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.append(f"{module} -> {node.module}")
    return found


@pytest.mark.parametrize("above", ["scenarios", "benchmarks", "tests"])
def test_launch_reads_nothing_above_it(above: str) -> None:
    assert [line for line in _every_import("launch") if _in(line.split(" -> ")[1], above)] == []


def test_no_benchmark_starts_a_process_through_the_scenarios() -> None:
    found = [
        line
        for line in _imports_into("benchmarks", "scenarios")
        if line.split(" -> ")[1]
        not in BENCHMARKS_READING_SCENARIOS.get(line.split(" -> ")[0], set())
    ]
    assert found == []


# scenarios/ from the bottom up (docs/architecture.md#the-layers-of-scenarios): a module reads
# its own floor and the floors below it, never one above. The entry points on top (the command
# line, the demo, doctor, the offline kit, the live page of `--web`) may read every floor: the
# page reads the demo's readings, the one copy of them, so it stands on the demo's floor.
SCENARIO_FLOORS: tuple[tuple[str, ...], ...] = (
    ("scenarios.errors",),
    ("scenarios.checker",),
    ("scenarios.engine",),
    ("scenarios.catalog",),
    ("scenarios.registry",),
    ("scenarios.report",),
    ("scenarios.run",),
    # The workshop's hands-on parts: stories told with a Stage, like the catalog's, in a
    # folder the attendee works in; the puzzle reads the exercises' room, folder and history.
    ("scenarios.exercises", "scenarios.puzzle"),
    (
        "scenarios.cli",
        "scenarios.doctor",
        "scenarios.kit",
        "scenarios.demo",
        "scenarios.web",
        "scenarios.change_command",
        "scenarios.compat_command",
        "scenarios.exercise_command",
        "scenarios.nemesis_command",
        "scenarios.puzzle_command",
        "scenarios.__main__",
    ),
)


def _floor(module: str, floors: tuple[tuple[str, ...], ...]) -> int | None:
    return next(
        (i for i, names in enumerate(floors) if any(_in(module, name) for name in names)), None
    )


def upward_imports(graph: dict[str, set[str]], floors: tuple[tuple[str, ...], ...]) -> list[str]:
    """Every import from a floor to one above it: `module -> imported`."""
    found = []
    for module, imported in graph.items():
        own = _floor(module, floors)
        if own is None:
            continue
        for target in imported:
            theirs = _floor(target, floors)
            if theirs is not None and theirs > own:
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_the_floors_of_scenarios_only_look_down() -> None:
    assert upward_imports(GRAPH, SCENARIO_FLOORS) == []


def test_every_module_of_scenarios_is_on_a_floor() -> None:
    assert [
        m
        for m in GRAPH
        if _in(m, "scenarios") and m != "scenarios" and _floor(m, SCENARIO_FLOORS) is None
    ] == []


def test_the_floor_rule_refuses_what_it_should() -> None:
    graph = {
        "scenarios.engine.stage": {"scenarios.report.narration", "scenarios.checker.verify"},
        "scenarios.report.story": {"scenarios.registry"},
        "scenarios.demo.session": {"scenarios.run.runner"},
    }
    assert upward_imports(graph, SCENARIO_FLOORS) == [
        "scenarios.engine.stage -> scenarios.report.narration"
    ]


@pytest.mark.parametrize(
    "other",
    [
        "scenarios.engine",
        "scenarios.run",
        "scenarios.report",
        "scenarios.catalog",
        "scenarios.demo",
    ],
)
def test_the_checker_is_pure(other: str) -> None:
    assert _imports_into("scenarios.checker", other) == []


# The steps many scenarios take (scenarios/catalog/steps.py): every scenario may name them.
SHARED = "scenarios.catalog.steps"


def _scenario_of(module: str) -> str:
    """The scenario a catalog module belongs to: the museum's modules are known-bugs' cases."""
    name = module.split(".")[2] if module.count(".") >= 2 else ""
    return "known_bugs" if name == "museum" else name


def catalog_cross_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} -> {target}"
        for module, imported in graph.items()
        if _in(module, "scenarios.catalog") and module != "scenarios.catalog"
        for target in imported
        if _in(target, "scenarios.catalog")
        and target != "scenarios.catalog"
        and target != SHARED
        and _scenario_of(target) != _scenario_of(module)
    )


def test_no_scenario_module_imports_another() -> None:
    assert catalog_cross_imports(GRAPH) == []


def test_the_catalog_rule_refuses_what_it_should() -> None:
    graph = {
        "scenarios.catalog.parallelism": {"scenarios.catalog.chaos"},
        "scenarios.catalog.known_bugs": {"scenarios.catalog.museum.exhibit"},
        "scenarios.catalog.museum.spark_55058": {"scenarios.catalog.museum.restart"},
        "scenarios.catalog.museum.restart": {"scenarios.catalog.chaos"},
    }
    assert catalog_cross_imports(graph) == [
        "scenarios.catalog.museum.restart -> scenarios.catalog.chaos",
        "scenarios.catalog.parallelism -> scenarios.catalog.chaos",
    ]
