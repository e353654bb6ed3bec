"""The fetch-wait benchmark's pure parts: the settings it compares and its table.

The benchmark itself starts Apache Kafka and the Spark app three times; it is run by hand.
"""

from __future__ import annotations

from benchmarks import fetch_wait as bench


def test_the_connector_runs_with_kafkas_default_then_lowered_then_ours() -> None:
    default, lowered, ours = bench.settings(100)
    assert default.options == ("--source", "spark-kafka")  # no fetch.max.wait.ms: Kafka's own
    assert lowered.options == (
        "--source",
        "spark-kafka",
        "--source-option",
        "kafka.fetch.max.wait.ms=100",
    )
    assert ours.options == ("--source", "python")


def test_table_gives_each_setting_and_the_lowered_over_default_ratio() -> None:
    results = {
        s.label: bench.Figures(took_ms=ms, send_to_output_sec=sec, batches=20)
        for s, ms, sec in zip(bench.settings(100), (760, 350, 430), (1.05, 0.82, 0.78))
    }
    lines = bench.table(results, 100).splitlines()
    assert lines[0].startswith(
        "| measure | connector, Kafka's default (500 ms) | "
        "connector, kafka.fetch.max.wait.ms=100 | ours"
    )
    assert lines[2] == "| 1-message batch, median `took` | 0.76 s | 0.35 s | 0.43 s | 0.46 |"
    assert lines[3] == "| send to output line, median | 1.05 s | 0.82 s | 0.78 s | 0.78 |"
    assert "at least 20 batches each" in lines[5]
