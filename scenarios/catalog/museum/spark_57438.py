"""SPARK-57438: SPARK-55271's NullPointerException filed again under another ticket.

apache/spark#56526 fixes the same `Some(null)` in KafkaMicroBatchStream.metrics that SPARK-55271
names (its own fix: `Option(...)` where SPARK-55271's PRs test the value). The museum runs it
once, under SPARK-55271, whose lines it shares (spark_app/lines/known_bug_table.py, `alias_of`).

Usage: `python -m scenarios run known-bugs --exhibits SPARK-57438` (it names SPARK-55271's way)
"""

from __future__ import annotations

from scenarios.catalog.museum.exhibit import Exhibit
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT"]

EXHIBIT = Exhibit(bug_named("SPARK-57438"))
