"""compat's matrix is planned before anything starts: its cells, and bad input in one line."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.spark_envs import SERVED_LINES
from scenarios.errors import ScenarioError
from scenarios.run.check_change import messages_option
from scenarios.run.compat_plan import (
    COUNTER,
    COUNTER_TWS,
    COUNTER_VARIANTS,
    chosen_lines,
    chosen_queries,
    gallery_queries,
    plan_cells,
)


def test_every_ordered_pair_of_two_different_lines_is_a_cell_both_ways() -> None:
    dedup = PROJECT_ROOT / "queries" / "dedup.py"
    cells = plan_cells([dedup], ["4.0.0", "4.1.1", "4.2.0"])
    pairs = [(c.from_line, c.to_line) for c in cells]
    assert sorted(pairs) == sorted(
        [(f, t) for f in ("4.0.0", "4.1.1", "4.2.0") for t in ("4.0.0", "4.1.1", "4.2.0") if f != t]
    )
    assert ("4.0.0", "4.2.0") in pairs and ("4.2.0", "4.0.0") in pairs  # upgrade and downgrade


def test_the_counter_runs_on_each_store_and_format_and_a_gallery_query_on_its_own() -> None:
    dedup = PROJECT_ROOT / "queries" / "dedup.py"
    cells = plan_cells([COUNTER, dedup], ["4.0.0", "4.2.0"])
    counter = {(c.variant.store, c.variant.format) for c in cells if c.query == COUNTER}
    assert counter == {("hdfs", 1), ("rocksdb", 1), ("rocksdb", 2)}
    assert [c.variant.name for c in cells if c.query == dedup] == ["hdfs", "hdfs"]
    assert len(cells) == 2 * (len(COUNTER_VARIANTS) + 1)
    assert len({c.name for c in cells}) == len(cells)  # each cell's report has a name of its own


def test_the_counter_on_transform_with_state_is_a_cell_on_rocksdb_only() -> None:
    cells = plan_cells([COUNTER_TWS], ["4.0.0", "4.2.0"])
    assert [(c.variant.store, c.variant.format) for c in cells] == [("rocksdb", 1)] * 2
    assert [c.name for c in cells] == [
        "counter_tws-rocksdb-4.0.0-to-4.2.0",
        "counter_tws-rocksdb-4.2.0-to-4.0.0",
    ]
    assert chosen_queries("counter_tws") == [COUNTER_TWS]
    assert gallery_queries()[:2] == [COUNTER, COUNTER_TWS]


def test_the_default_is_every_served_line_and_the_counter_with_the_whole_gallery() -> None:
    assert chosen_lines("") == list(SERVED_LINES)
    queries = chosen_queries("")
    assert queries[0] == COUNTER and queries == gallery_queries()
    assert {p.name for p in queries} >= {"counter.py", "dedup.py", "window_count.py"}
    assert chosen_queries("dedup.py, counter") == [PROJECT_ROOT / "queries" / "dedup.py", COUNTER]


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ("4.2.0", "give two or more of 4.0.0, 4.1.1, 4.2.0"),
        ("4.2.0,4.2.0", "give two or more"),
        ("4.0.0,4.3.0", "--lines 4.3.0: Maven Central serves"),
    ],
)
def test_one_line_or_an_unserved_one_is_refused_naming_the_served(lines: str, said: str) -> None:
    with pytest.raises(ScenarioError, match=said) as caught:
        chosen_lines(lines)
    assert "\n" not in str(caught.value)
    assert all(v in str(caught.value) for v in SERVED_LINES)


def test_a_query_the_gallery_lacks_is_refused_naming_those_it_has() -> None:
    with pytest.raises(ScenarioError, match="--queries nope: the gallery has counter, "):
        chosen_queries("counter,nope")


@pytest.mark.parametrize(
    "args", [["--lines", "4.2.0"], ["--lines", "4.2.0,3.5.1"], ["--queries", "nope"]]
)
def test_compat_bad_input_is_one_line_and_exit_2_before_anything_starts(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "compat", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("scenarios: --")
    assert done.stdout == ""  # nothing started: no run folder announced


@pytest.mark.parametrize("text", ["0", "-3", "x"])
def test_messages_is_one_or_more_for_compat_and_check_change(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="1 or more"):
        messages_option(text)
    assert messages_option("20") == 20
