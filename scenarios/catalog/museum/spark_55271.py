"""SPARK-55271: Spark 4.1's Kafka connector fails the trigger that replays a pending batch.

Every scenario that restarts the connector on a pending batch meets it on the 4.1 line (the
stage expects it there and starts the app again, scenarios/engine/stage/app.py); the app's own
line for it is spark_app/lines/known_spark_bugs.py. Both read its lines from the museum's table.

Usage: `python -m scenarios run endless-retention --fast --spark 4.1.1`
"""

from __future__ import annotations

from scenarios.catalog.museum.exhibit import Exhibit
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT"]

EXHIBIT = Exhibit(bug_named("SPARK-55271"))
