"""The state-store benchmark's pure parts: its table and ratios, the kinds of process it sums, the
peaks it keeps, and the batches it counts.

The benchmark itself starts the Spark app many times and runs for an hour; it is run by hand.
"""

from __future__ import annotations

import math

from benchmarks import state_compare as bench


def test_table_has_a_ratio_column_after_each_configuration_but_the_first() -> None:
    measures = [
        ("restart", "s", {"hdfs": 10.0, "rocksdb": 12.5, "tws": math.nan}),
        ("RSS max: driver JVM", "MB", {"hdfs": 500.0, "rocksdb": 650.0, "tws": 700.0}),
        ("checkpoint: files", "", {"hdfs": 400, "rocksdb": 1000, "tws": 800}),
    ]
    lines = bench.table(measures, {"hdfs": "hdfs", "rocksdb": "rocksdb", "tws": "tws"}).splitlines()
    assert lines[0] == "| measure | hdfs | rocksdb | ÷ hdfs | tws | ÷ hdfs |"
    assert lines[1] == "|---|---:|---:|---:|---:|---:|"
    assert lines[2] == "| restart | 10.00 s | 12.50 s | x1.25 | - | - |"  # nothing measured: a dash
    assert lines[3] == "| RSS max: driver JVM | 500 MB | 650 MB | x1.30 | 700 MB | x1.40 |"
    assert lines[4] == "| checkpoint: files | 400 | 1,000 | x2.50 | 800 | x2.00 |"


def test_the_driver_is_the_root_the_jvm_is_java_and_other_pythons_are_workers() -> None:
    assert (
        bench.classify(10, 10, "/usr/bin/python3 -m spark_app --source spark-kafka")
        == "driver Python"
    )
    assert (
        bench.classify(11, 10, "/usr/lib/jvm/java-17/bin/java -cp ... SparkSubmit") == "driver JVM"
    )
    assert (
        bench.classify(12, 10, "/work/.venv/bin/python3.11 -m pyspark.daemon") == "Python workers"
    )
    assert bench.classify(13, 10, "bash /work/.venv/bin/spark-submit") == "other"


def test_peaks_keep_each_kind_s_maximum_and_the_largest_total_at_one_sample() -> None:
    peaks = bench.Peaks()
    peaks.add({"driver JVM": [400_000], "Python workers": [50_000, 60_000], "other": [1_000]})
    peaks.add({"driver JVM": [500_000], "driver Python": [90_000], "Python workers": [70_000]})
    assert peaks.kb == {"driver JVM": 500_000, "driver Python": 90_000, "Python workers": 110_000}
    assert peaks.total_kb == 660_000  # the second sample; the kinds' maxima were not at one time
    assert peaks.workers_at_once == 2


def test_batches_done_counts_from_the_batch_lines() -> None:
    console = (
        "starting\n"
        "batch 0: Experience-0 [start, 3) rows=3 count=3 took 900 ms\n"
        "batch 1: Experience-0 [3, 7) rows=4 count=7 took 300 ms\n"
    )
    assert bench.batches_done(console) == 2
    assert bench.batches_done("starting\n") == 0
