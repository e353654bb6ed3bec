"""The scenarios' layers only look down (docs/architecture.md#the-packages).

- nothing in the engine, the catalog, the report or the checker imports the run layer
  (scenarios/run/): it chooses and executes runs, and is the one that reads them all;
- no scenario module imports another (a scenario is read alone; what two share is a move of
  the Stage or a pure helper of the checker); the museum's exhibits are cases of one scenario,
  known-bugs, so they and known_bugs.py may read the museum's shared modules;
- the checker is pure: it reads none of the engine, the run layer, the report or the catalog.

Read from the same import graph as tests/test_import_cycles.py: every import counts.
"""

from __future__ import annotations

import pytest

from tests.test_import_cycles import import_graph

GRAPH = import_graph()


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


@pytest.mark.parametrize(
    "below", ["scenarios.engine", "scenarios.catalog", "scenarios.report", "scenarios.checker"]
)
def test_no_layer_below_imports_the_run_layer(below: str) -> None:
    assert _imports_into(below, "scenarios.run") == []


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
