"""The side-by-side benchmark's pure parts: ratios, targets, its table, and the /proc readers.

The benchmark itself starts Apache Kafka and runs for minutes; it is run by hand, not here.
"""

from __future__ import annotations

import os

from benchmarks import broker_compare as bench
from benchmarks import broker_process


def _figures(produce: float = 1.0, first_ms: float = 110.0, start_s: float = 1.0) -> list:
    apache = 100.0
    return [
        bench.Figure(
            "kafka-python-tuned: produce msg/s",
            "msg/s",
            produce * apache,
            apache,
            paired_ratio=produce,
        ),
        bench.Figure(
            "kafka-python-tuned: consume msg/s", "msg/s", 2 * apache, apache, paired_ratio=1.5
        ),
        bench.Figure("first record, median", "ms", first_ms, 100.0),
        bench.Figure("start, fresh folder, to ApiVersions", "s", start_s, 10.0),
    ]


def test_ratio_is_embedded_over_apache_unless_rounds_were_paired() -> None:
    assert bench.Figure("start", "s", 1.0, 8.0).ratio == 0.125
    # Paired: the median of round-by-round ratios, not the ratio of the medians (here 2.0).
    assert bench.Figure("rate", "msg/s", 200.0, 100.0, paired_ratio=0.9).ratio == 0.9


def test_targets_are_judged_on_every_measure_they_name() -> None:
    lines = bench.judge(_figures())
    assert lines[0].startswith("target: throughput with kafka-python >= 1.0x Kafka's (paired): met")
    assert (
        "kafka-python-tuned: produce msg/s x1.00, kafka-python-tuned: consume msg/s x1.50"
        in lines[0]
    )
    assert (
        lines[1]
        == "target: first record <= 1.2x Kafka's (median): met (first record, median x1.10)"
    )
    assert (
        lines[2]
        == "target: start <= 1/5 of Kafka's (median): met (start, fresh folder, to ApiVersions x0.10)"
    )
    slower = bench.judge(_figures(produce=0.97, first_ms=121.0, start_s=2.01))
    assert [line.split(": ")[2].split(" (")[0] for line in slower] == ["NOT met"] * 3


def test_a_target_with_nothing_measured_is_left_out() -> None:
    assert bench.judge([bench.Figure("RSS peak", "MB", 40.0, 400.0)]) == []


def test_table_is_markdown_with_units_and_ratio() -> None:
    text = bench.table(_figures() + [bench.Figure("RSS peak", "MB", 40.0, 400.0)])
    lines = text.splitlines()
    assert lines[0] == "| measure | embedded | Apache Kafka | embedded ÷ Apache |"
    assert "| kafka-python-tuned: consume msg/s | 200 | 100 | x1.50 (paired) |" in lines
    assert "| first record, median | 110 ms | 100 ms | x1.10 |" in lines
    assert "| start, fresh folder, to ApiVersions | 1.00 s | 10.00 s | x0.10 |" in lines
    assert "| RSS peak | 40 MB | 400 MB | x0.10 |" in lines


def test_descendants_follow_the_tree_and_nothing_else() -> None:
    # 10 is our wrapper, 11 its JVM, 12 something the JVM started; 20 an unrelated process.
    parents = {10: 1, 11: 10, 12: 11, 20: 1, 1: 0}
    assert sorted(broker_process.descendants(10, parents)) == [10, 11, 12]
    assert broker_process.descendants(20, parents) == [20]


def test_status_field_reads_kilobytes() -> None:
    status = "Name:\tjava\nVmHWM:\t  412340 kB\nVmRSS:\t  398112 kB\n"
    assert broker_process.status_field(status, "VmRSS") == 398112
    assert broker_process.status_field(status, "VmHWM") == 412340


def test_tree_memory_counts_this_process() -> None:
    assert (
        broker_process.tree_memory_kb(os.getpid(), "VmRSS")
        >= broker_process.memory_kb(os.getpid(), "VmRSS")
        > 0
    )
