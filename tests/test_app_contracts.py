"""What other packages may read of the two apps.

Rule: launch/, oracle/, scenarios/ and benchmarks/ import from spark_app or kafka_app only the app's top-level
contract modules (those its `__init__.__all__` lists), or, deeper in it, names a module lists in
its own `__all__`; never another top-level module, never a name left out of `__all__`. A contract
may be a folder (spark_app/lines/): every module in it is then a contract, with its own
`__all__`, and none of them loads pyspark.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
APPS = ("spark_app", "kafka_app")
READERS = ("launch", "oracle", "scenarios", "benchmarks")


def _imports(path: Path) -> Iterator[tuple[str, str | None, int]]:
    """(module, name or None for `import module`, line) of every import of an app in `path`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.module, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno


def _refusal(module: str, name: str | None) -> str | None:
    """Why importing `name` from `module` breaks the rule, or None if it keeps to it."""
    parts = module.split(".")
    if parts[0] not in APPS:
        return None
    if len(parts) == 1:
        if name is None or name in importlib.import_module(module).__all__:
            return None
        return f"{module}.{name} is not one of {module}'s contract modules (its __all__)"
    app = importlib.import_module(parts[0])
    top = importlib.import_module(f"{parts[0]}.{parts[1]}")
    if len(parts) == 2 and not hasattr(top, "__path__") and parts[1] not in app.__all__:
        return f"{module} is not one of {parts[0]}'s contract modules (its __all__)"
    if name is not None and name not in getattr(importlib.import_module(module), "__all__", ()):
        return f"{name} is not in {module}.__all__"
    return None


def _breaches(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for module, name, line in _imports(path):
            why = _refusal(module, name)
            if why:
                found.append(f"{path.relative_to(REPO)}:{line}: {why}")
    return found


@pytest.mark.parametrize("reader", READERS)
def test_other_packages_read_only_the_apps_contracts(reader: str) -> None:
    assert _breaches(REPO / reader) == []


@pytest.mark.parametrize("app", APPS)
def test_every_listed_contract_is_a_top_level_module_or_folder_with_its_own_all(app: str) -> None:
    contracts = importlib.import_module(app).__all__
    assert contracts, f"{app}.__all__ lists no contract module"
    for name in contracts:
        modules = _contract_modules(app, name)
        assert modules, f"{app}.{name} is neither a top-level module nor a folder of modules"
        for module in modules:
            assert importlib.import_module(module).__all__, f"{module} has no __all__"


def _contract_modules(app: str, name: str) -> list[str]:
    """The modules a contract in `app.__all__` stands for: itself, or every module of its folder."""
    if (REPO / app / f"{name}.py").is_file():
        return [f"{app}.{name}"]
    folder = REPO / app / name
    return [
        f"{app}.{name}.{path.stem}"
        for path in sorted(folder.glob("*.py"))
        if path.stem != "__init__"
    ]


def test_the_lines_others_read_are_read_without_starting_spark() -> None:
    """Every module of spark_app/lines/ imports without pyspark: the scenarios, the demo and
    the benchmarks parse the app's lines in processes that never start Spark."""
    modules = _contract_modules("spark_app", "lines")
    script = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in modules)
        + "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pyspark'))"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert found == "[]", f"importing spark_app/lines/ loads {found}"


def test_the_rule_refuses_what_it_should() -> None:
    """The checker itself: a private name, an unlisted name and a non-contract module fail."""
    assert _refusal("spark_app.source.kafka_source", "_task_client") is not None
    assert _refusal("spark_app.settings", "_REPEATED_FLAGS") is not None
    assert _refusal("spark_app.query.sink", "_append") is not None
    assert _refusal("spark_app", "query") is not None
    assert _refusal("spark_app", "lines") is None
    assert _refusal("spark_app.lines.output_line", "parse_line") is None
    assert _refusal("spark_app.settings", "SparkAppSettings") is None
    assert _refusal("spark_app.checkpoint.reader", "read_checkpoint") is None
