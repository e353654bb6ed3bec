"""Joining the reports of a run split with --shard: what one run would have written, read back
from each shard's JSON (a round trip of ScenarioResult), with paths pointing into the join."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.errors import ScenarioError
from scenarios.report.pages import write_index
from scenarios.report.verdicts import ScenarioResult, read_result, write_reports
from scenarios.run.matrix import Matrix, write_matrix
from scenarios.run.merge import merge_reports


def result(name: str, root: Path, held: bool = True, version: str = "4.2.0") -> ScenarioResult:
    run_dir = root / name
    (run_dir / "log").mkdir(parents=True)
    (run_dir / "log" / "streaming-output.log").write_text("Count = 1\n")
    (root / f"{name}.svg").write_text("<svg/>")
    return ScenarioResult(
        name,
        f"the {name} lesson",
        duration_sec=30.0,
        spark_version=version,
        checks=[check("exactly once", held, "1..9", "1..9" if held else "1..8")],
        facts={"run_dir": str(run_dir), "seen": [1, 2]},
        artifacts={
            "run_dir": str(run_dir),
            "output_log": str(run_dir / "log" / "streaming-output.log"),
        },
    )


def shard(folder: Path, *names: str, held: bool = True) -> Path:
    results = [result(n, folder, held) for n in names]
    write_reports(results, folder)
    write_index(results, folder)
    return folder


def test_a_result_reads_back_as_it_was_written(tmp_path: Path) -> None:
    written = result("chaos", tmp_path, held=False)
    write_reports([written], tmp_path)
    again = read_result(tmp_path / "chaos.json")
    assert again.to_dict() == written.to_dict()
    assert again.verdict == "failed"


def test_shards_join_in_catalog_order_with_paths_into_the_join(tmp_path: Path) -> None:
    one = shard(tmp_path / "shard-1", "chaos", "endless-retention")
    two = shard(tmp_path / "shard-2", "checkpoint-reset", held=False)
    into = tmp_path / "merged"
    merged = merge_reports([one, two], into)
    assert [r.name for r in merged.results] == ["endless-retention", "checkpoint-reset", "chaos"]
    assert (into / "index.html").exists() and (into / "chaos.svg").exists()
    joined = read_result(into / "checkpoint-reset.json")
    assert joined.verdict == "failed"
    assert joined.artifacts["output_log"] == str(
        into / "checkpoint-reset" / "log" / "streaming-output.log"
    )
    assert Path(joined.artifacts["output_log"]).read_text() == "Count = 1\n"
    suites = ET.parse(into / "junit.xml").getroot()
    assert (suites.get("tests"), suites.get("failures")) == ("3", "1")


def test_a_scenario_in_two_shards_or_an_empty_shard_is_refused(tmp_path: Path) -> None:
    one = shard(tmp_path / "a", "chaos")
    two = shard(tmp_path / "b", "chaos")
    with pytest.raises(ScenarioError, match="chaos is in more than one"):
        merge_reports([one, two], tmp_path / "merged")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match="no scenario report"):
        merge_reports([tmp_path / "empty"], tmp_path / "merged-2")
    with pytest.raises(ScenarioError, match="is not a folder"):
        merge_reports([tmp_path / "missing"], tmp_path / "merged-3")


def test_matrix_shards_join_column_by_column(tmp_path: Path) -> None:
    shards = []
    for number, names in ((1, ["chaos"]), (2, ["endless-retention"])):
        folder = tmp_path / f"shard-{number}"
        by_version = {}
        for version in ("4.0.0", "4.2.0"):
            column = folder / version
            by_version[version] = [result(n, column, version=version) for n in names]
            write_reports(by_version[version], column)
        write_matrix(
            Matrix(["4.0.0", "4.2.0"], by_version), folder, {"4.0.0": "4.0.0", "4.2.0": "4.2.0"}
        )
        shards.append(folder)
    merged = merge_reports(shards, tmp_path / "merged")
    assert merged.matrix is not None and merged.matrix.exit_code == 0
    table = json.loads((tmp_path / "merged" / "matrix.json").read_text())
    assert table["versions"] == ["4.0.0", "4.2.0"]
    assert {row["scenario"] for row in table["rows"]} == {"chaos", "endless-retention"}
    assert (tmp_path / "merged" / "matrix.html").exists()
    assert (tmp_path / "merged" / "4.2.0" / "chaos.json").exists()
