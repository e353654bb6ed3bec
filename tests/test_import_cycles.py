"""No import cycle among the project's packages (kafka_app, spark_app, launch, scenarios,
maven_jars, checkpoint_stores, benchmarks), and the one kind of loop allowed named.

A cycle makes import order matter (whichever module a process imports first sees the other
half-made) and ties two modules into one that cannot be read, tested or moved alone. Every
import a module writes counts, read with ast (nothing is run): at its top, in a function (a
deferred import only hides a cycle from Python, not from a reader), and under
`if TYPE_CHECKING:` (a type named is a dependency too).

Allowed, the one exception: a module of a package naming the package's own class in its type
hints only (`if TYPE_CHECKING:`). The Stage is made of parts (scenarios/engine/stage/app.py,
kafka.py, …), each holds the Stage it belongs to, and the Stage is built from them: the parts
are the Stage's rooms, and a Protocol per part would say the same thing twice.

Usage: `uv run pytest tests/test_import_cycles.py`; on a failure, each cycle is one line
`a -> b -> a`: break it by moving what both need into a module neither imports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = (
    "kafka_app",
    "spark_app",
    "launch",
    "oracle",
    "scenarios",
    "maven_jars",
    "checkpoint_stores",
    "benchmarks",
)


def _module_name(path: Path, root: Path = REPO) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in `tree`, and whether it is for type hints only."""
    type_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and _is_type_checking(block)
        for statement in block.body
        for node in ast.walk(statement)
    }
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, id(node) in type_only


def _is_type_checking(block: ast.If) -> bool:
    return isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"


def _targets(node: ast.Import | ast.ImportFrom, package: str, known: set[str]) -> set[str]:
    """The project's modules one import statement reads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & known
    base = node.module or ""
    if node.level:  # relative: `from . import x`, `from ..y import z`
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, *([base] if base else [])])
    # `from package import module` reads that module; `from module import name`, the module.
    targets = {f"{base}.{alias.name}" for alias in node.names} & known
    if len(targets) < len(node.names) and base in known:
        targets.add(base)
    return targets


def _imported(module: str, path: Path, known: set[str]) -> set[str]:
    """The project's modules `module` depends on, less the allowed type-only back-reference."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node, type_only in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        for target in _targets(node, package, known):
            if not (type_only and module.startswith(target + ".")):
                found.add(target)
    return found - {module}


def import_graph() -> dict[str, set[str]]:
    """Each module of the project's packages and the project's modules it imports."""
    modules = _modules()
    return {name: _imported(name, path, set(modules)) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each group of modules that reach each other, as a path that ends
    where it starts (a -> b -> a): the shortest through the group's first module by name."""
    return sorted(
        _shortest_cycle(min(group), graph, group)
        for group in _strongly_connected(graph)
        if len(group) > 1
    )


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    # Kosaraju: the order in which a depth-first walk finishes the modules, then the groups
    # found walking the reversed graph in the opposite order.
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(graph[start])))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                order.append(node)
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(sorted(graph[child]))))
    importers: dict[str, set[str]] = {node: set() for node in graph}
    for node, targets in graph.items():
        for target in targets:
            importers[target].add(node)
    groups: list[set[str]] = []
    assigned: set[str] = set()
    for start in reversed(order):
        group: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            if node not in assigned:
                assigned.add(node)
                group.add(node)
                todo.extend(importers[node] - assigned)
        if group:
            groups.append(group)
    return groups


def _shortest_cycle(start: str, graph: dict[str, set[str]], group: set[str]) -> list[str]:
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a cycle but none returns to it")


def test_the_project_has_no_import_cycle() -> None:
    found = [" -> ".join(cycle) for cycle in cycles(import_graph())]
    assert not found, (
        "import cycles; break each by moving what both need into a module "
        "neither imports:\n" + "\n".join(found)
    )


# --- the reader itself: it must see what a cycle is made of ------------------------------------


def _graph_of(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    modules = {_module_name(path, tmp_path): path for path in tmp_path.rglob("*.py")}
    return {name: _imported(name, path, set(modules)) for name, path in modules.items()}


def test_a_cycle_through_a_deferred_and_a_type_only_import_is_found(tmp_path: Path) -> None:
    # The shape engine/settings.py and engine/stacks.py had: neither import runs at import time.
    graph = _graph_of(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/settings.py": "def stack():\n    from p.stacks import stack_of\n",
            "p/stacks.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from p.settings import RunSettings\n",
            "p/other.py": "from p import settings\nfrom . import stacks\n",
        },
    )
    assert cycles(graph) == [["p.settings", "p.stacks", "p.settings"]]
    assert graph["p.other"] == {"p.settings", "p.stacks"}  # a module, not its package


def test_a_three_module_cycle_is_named_in_order(tmp_path: Path) -> None:
    # The shape engine/matrix.py -> engine/runner.py -> report/pages.py -> engine/matrix.py had.
    graph = _graph_of(
        tmp_path,
        {
            "s/__init__.py": "",
            "s/matrix.py": "from s.runner import run\n",
            "s/runner.py": "import s.pages\n",
            "s/pages.py": "from s.matrix import MatrixRow\n",
        },
    )
    assert cycles(graph) == [["s.matrix", "s.runner", "s.pages", "s.matrix"]]


def test_a_part_may_name_its_whole_in_type_hints_only(tmp_path: Path) -> None:
    hinted = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from stage import Stage\n"
    graph = _graph_of(
        tmp_path,
        {
            "stage/__init__.py": "from stage.app import AppPart\n",
            "stage/app.py": hinted,
        },
    )
    assert cycles(graph) == []
    graph = _graph_of(tmp_path, {"stage/app.py": "from stage import Stage\n"})  # at run time
    assert cycles(graph) == [["stage", "stage.app", "stage"]]
