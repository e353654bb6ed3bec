"""SPARK-12693 (seed 001's own): retention deletes the checkpoint's next offset.

Shown by short-retention, which needs no museum run of its own: the restart after retention
deleted what the checkpoint was to read next fails on data loss, on every line.

Usage: `python -m scenarios run short-retention --fast`
"""

from __future__ import annotations

from scenarios.catalog.museum.exhibit import Exhibit
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT"]

EXHIBIT = Exhibit(bug_named("SPARK-12693"))
