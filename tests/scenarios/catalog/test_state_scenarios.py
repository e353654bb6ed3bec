"""The pure judgements of state-stores and checkpoint-v2: does a partition folder fit its store,
does a lineage run from a snapshot over committed ids (no Spark)."""

from __future__ import annotations

import pytest

from scenarios.catalog.checkpoint_v2 import lineage_problems
from scenarios.catalog.state_stores import STORES, layout_problems, load_problems
from spark_app.checkpoint.state_files import classify

STORE = {store.name: store for store in STORES}
A, B, C, D = (
    "a" * 8 + "-0000-4000-8000-000000000000",
    "b" * 8 + "-0000-4000-8000-000000000000",
    "c" * 8 + "-0000-4000-8000-000000000000",
    "d" * 8 + "-0000-4000-8000-000000000000",
)


def files(*names: str) -> list:
    return [classify(name) for name in names]


@pytest.mark.parametrize(
    "store, names",
    [
        ("hdfs", ["1.delta", "2.delta", "3.delta", "4.delta", "4.snapshot", "5.delta"]),
        ("rocksdb", ["1.zip", "2.zip", "3.zip", "SSTs/000001-x.sst"]),
        (
            "rocksdb-changelog",
            [
                "1.changelog",
                "2.changelog",
                "3.changelog",
                "3.zip",
                "4.changelog",
                "SSTs/000001-x.sst",
            ],
        ),
    ],
)
def test_each_stores_own_layout_fits(store: str, names: list[str]) -> None:
    assert layout_problems(STORE[store], files(*names), every=3) == []


@pytest.mark.parametrize(
    "store, loads",
    [
        ("hdfs", ["1.delta", "2.delta"]),
        ("hdfs", ["3.snapshot", "4.delta", "5.delta"]),
        ("rocksdb", ["7.zip"]),
        ("rocksdb-changelog", ["3.zip", "4.changelog"]),
        ("rocksdb-changelog", ["1.changelog", "2.changelog"]),
    ],
)
def test_what_a_restart_loads_fits_its_store(store: str, loads: list[str]) -> None:
    assert load_problems(STORE[store], loads) == []


@pytest.mark.parametrize(
    "store, loads, problem",
    [
        ("hdfs", ["3.snapshot", "4.(missing)"], "4.(missing) is not on disk"),
        ("hdfs", ["2.delta", "3.delta"], "starts at 2.delta"),
        ("rocksdb", ["6.zip", "7.zip"], "not a single .zip"),
        ("rocksdb-changelog", ["3.zip", "4.delta"], "4.delta: not a .changelog"),
        ("hdfs", [], "nothing to load"),
    ],
)
def test_what_a_restart_cannot_load_is_named(store: str, loads: list[str], problem: str) -> None:
    assert any(problem in p for p in load_problems(STORE[store], loads))


def test_what_does_not_fit_is_named() -> None:
    hdfs = STORE["hdfs"]
    assert (
        "versions with a .delta: [1, 3]"
        in layout_problems(hdfs, files("1.delta", "3.delta", "3.snapshot"), 3)[0]
    )
    assert any(
        "unexpected kinds ['zip']" in p
        for p in layout_problems(
            hdfs, files("1.delta", "2.delta", "3.delta", "3.snapshot", "3.zip"), 3
        )
    )
    # Snapshots closer than minDeltasForSnapshot, or none at all.
    changelog = STORE["rocksdb-changelog"]
    close = files("1.changelog", "2.changelog", "2.zip", "3.changelog", "SSTs/x.sst")
    assert "snapshots at [2]" in layout_problems(changelog, close, 3)[0]
    assert "snapshots at []" in layout_problems(hdfs, files("1.delta", "2.delta"), 3)[0]
    assert "SST files missing" in layout_problems(STORE["rocksdb"], files("1.zip"), 3)


def test_a_lineage_from_a_snapshot_over_committed_ids() -> None:
    disk = files(f"3_{A}.zip", f"3_{A}.changelog", f"4_{B}.changelog", f"5_{C}.changelog")
    committed = {3: {A}, 4: {B}}
    assert lineage_problems(5, [(3, A), (4, B)], disk, committed) == []
    assert lineage_problems(1, [], disk, committed) == []  # the first version has none


def test_a_lineage_that_does_not_hold_is_named() -> None:
    disk = files(f"3_{A}.zip", f"4_{B}.changelog", f"4_{D}.changelog")
    committed = {3: {A}, 4: {B}}
    assert "lineage versions [3]" in lineage_problems(5, [(3, A)], disk, committed)[0]
    assert "not a snapshot" in lineage_problems(5, [(2, C), (3, A), (4, B)], disk, committed)[0]
    assert "ids no commit names at [4]" in lineage_problems(5, [(3, A), (4, D)], disk, committed)[0]
    assert "no lineage" in lineage_problems(5, [], disk, committed)[0]
