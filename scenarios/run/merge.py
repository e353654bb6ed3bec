"""`python -m scenarios merge SHARD… --into DIR`: the report folders of a run split over
machines (`--shard I/N`) joined into one, as if one run had written it.

A run's folder holds `<name>.json` per scenario, its timeline `<name>.svg` and its folders
`<name>/`; a matrix's holds `matrix.json` and such a folder per column (a version or a stack).
Each shard's files are copied into DIR (a scenario twice is refused: the shards were not
disjoint), the results are read back from their JSON, and DIR gets the one index.html,
junit.xml (and for a matrix, matrix.html, matrix.md, matrix.json) a single run would have
written, the paths in each result pointing into DIR.

Usage: `merge_reports([Path("shard-1"), Path("shard-2")], Path("merged"))`
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scenarios.errors import ScenarioError
from scenarios.registry import all_scenarios
from scenarios.report.pages import write_index
from scenarios.report.verdicts import ScenarioResult, read_result, write_reports
from scenarios.run.matrix import Matrix, write_matrix

__all__ = ["Merged", "merge_reports"]


@dataclass(frozen=True)
class Merged:
    results: list[ScenarioResult]
    matrix: Matrix | None  # None for plain runs


def merge_reports(shards: Sequence[Path], into: Path) -> Merged:
    for shard in shards:
        if not shard.is_dir():
            raise ScenarioError(f"{shard} is not a folder: give the --report folders of the shards")
    kinds = {(shard / "matrix.json").exists() for shard in shards}
    if len(kinds) > 1:
        raise ScenarioError(
            "some of these folders hold a matrix and some a run: merge like with like"
        )
    into.mkdir(parents=True, exist_ok=True)
    if kinds == {True}:
        return _merge_matrices(shards, into)
    results = _merge_runs(shards, into)
    return Merged(results, None)


def _merge_runs(shards: Sequence[Path], into: Path) -> list[ScenarioResult]:
    found: dict[str, ScenarioResult] = {}
    for shard in shards:
        for path in sorted(shard.glob("*.json")):
            result = read_result(path)
            if result.name in found:
                raise ScenarioError(
                    f"{result.name} is in more than one of these folders (again in "
                    f"{shard}): the shards were not disjoint"
                )
            found[result.name] = _moved(result, shard, into)
    if not found:
        raise ScenarioError(f"no scenario report (<name>.json) in {', '.join(map(str, shards))}")
    results = _in_catalog_order(found)
    write_reports(results, into)
    write_index(results, into)
    return results


def _moved(result: ScenarioResult, shard: Path, into: Path) -> ScenarioResult:
    """Copy the scenario's files from `shard` into `into` (nothing to copy when they are the
    same folder) and point its paths there."""
    name = result.name
    if shard.resolve() != into.resolve():
        into.mkdir(parents=True, exist_ok=True)
        for part in (shard / f"{name}.svg", shard / name):
            target = into / part.name
            if part.is_dir():
                shutil.copytree(part, target, dirs_exist_ok=True, symlinks=True)
            elif part.exists():
                shutil.copy2(part, target)
    old_root = result.artifacts.get("run_dir", "")
    for key, value in list(result.artifacts.items()):
        if value == old_root:
            result.artifacts[key] = str(into / name)
        elif old_root and value.startswith(old_root + "/"):
            result.artifacts[key] = str(into / name / value[len(old_root) + 1 :])
    if "run_dir" in result.facts:
        result.facts["run_dir"] = str(into / name)
    return result


def _in_catalog_order(found: dict[str, ScenarioResult]) -> list[ScenarioResult]:
    order = {s.name: i for i, s in enumerate(all_scenarios())}
    return sorted(found.values(), key=lambda r: (order.get(r.name, len(order)), r.name))


def _merge_matrices(shards: Sequence[Path], into: Path) -> Merged:
    heads = [json.loads((shard / "matrix.json").read_text(encoding="utf-8")) for shard in shards]
    first = heads[0]
    folders: dict[str, str] = first.get("folders") or {c: c for c in first["versions"]}
    if any(head["versions"] != first["versions"] for head in heads):
        raise ScenarioError(
            "these matrices compare different columns: "
            + "; ".join(", ".join(h["versions"]) for h in heads)
        )
    results: dict[str, list[ScenarioResult]] = {}
    for column in first["versions"]:
        column_shards = [shard / folders[column] for shard in shards]
        results[column] = _merge_runs(column_shards, into / folders[column])
    matrix = Matrix(
        list(first["versions"]),
        results,
        label=first.get("label", "PySpark"),
        title=first.get("title", "PySpark versions compared"),
    )
    write_matrix(matrix, into, folders)
    return Merged([r for rs in results.values() for r in rs], matrix)
