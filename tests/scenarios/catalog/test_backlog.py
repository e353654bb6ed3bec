"""backlog's pure parts: which stacks run its capped ways, and the table row of a way."""

from __future__ import annotations

import pytest

from scenarios.catalog.backlog import (
    BACKLOG,
    CAP_SHARE,
    FAST_BACKLOG,
    MIN_WAITING,
    SCENARIO,
    Way,
    capped_parts_unavailable,
)
from scenarios.registry import find_scenarios


@pytest.mark.parametrize(
    "source, version",
    [("spark-kafka", "4.0.5"), ("spark-kafka", "4.2.0"), ("python", "4.2.0"), ("python", "4.3.0")],
)
def test_the_capped_ways_run_on_the_connector_and_on_our_source_from_pyspark_4_2(
    source: str, version: str
) -> None:
    assert capped_parts_unavailable(source, version) == ""


@pytest.mark.parametrize("version", ["4.0.5", "4.1.1"])
def test_older_pyspark_skips_them_on_our_source_in_one_line_saying_why(version: str) -> None:
    reason = capped_parts_unavailable("python", version)
    assert f"PySpark {version}" in reason and "ReadLimit came with 4.2" in reason
    assert "\n" not in reason


def test_the_sizes_leave_about_ten_capped_batches_and_a_minimum_below_a_cap() -> None:
    for backlog in (BACKLOG, FAST_BACKLOG):
        assert backlog % CAP_SHARE == 0 and backlog // CAP_SHARE > MIN_WAITING


def test_a_way_is_a_row_of_the_docs_table() -> None:
    way = Way(
        "uncapped",
        batches=2,
        biggest=50_024,
        biggest_ms=7312,
        catch_up_sec=21.04,
        batches_sec=9.96,
        peak_mib=1168,
        lag_at_end=26,
    )
    assert way.row() == {
        "batches": 2,
        "biggest_batch": 50_024,
        "biggest_batch_ms": 7312,
        "catch_up_sec": 21.0,
        "batches_sec": 10.0,
        "peak_rss_mib": 1168,
        "lag_at_end": 26,
    }


def test_it_is_registered_after_partitions_added() -> None:
    assert find_scenarios(["backlog"]) == [SCENARIO]
