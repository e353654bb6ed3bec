"""The checkpoint-store benchmark's own rows: the store's figures, a dash where there is no store.

The benchmark itself starts two stores and the Spark app many times; it is run by hand.
"""

from __future__ import annotations

from benchmarks import state_compare, store_compare


def test_the_local_column_has_no_store_and_the_others_their_figures() -> None:
    stores = {
        "hdfs": {"start_sec": 9.5, "jvm_rss_mb": 255.0, "jvm_peak_end_mb": 300.0},
        "s3": {"start_sec": 2.0, "jvm_rss_mb": 116.0, "jvm_peak_end_mb": 150.0},
    }
    rows = store_compare._store_rows(stores)
    assert [name for name, _, _ in rows] == [
        "store: start, JVM to first answer",
        "store: JVM RSS once ready",
        "store: JVM RSS peak, at the end",
    ]
    lines = state_compare.table(
        rows, {"local": "local folder", "hdfs": "hdfs", "s3": "s3"}
    ).splitlines()
    assert lines[2] == "| store: start, JVM to first answer | - | 9.50 s | - | 2.00 s | - |"
