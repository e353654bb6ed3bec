"""The state operators' row counts of a batch, as the app logs them to spark.log and reads back.

Spark's progress report carries, per stateful operator, how many rows its state holds
(`numRowsTotal`) and how many the batch updated and removed. The app's console line does not
show them; spark.log gets one INFO line per batch with rows (query/progress.py), which the
museum's SPARK-53069 exhibit reads to compare a restart's counts with the run's before it:

    [INFO] [...] [spark_app.query.progress]: batch 3 state rows: [{"operatorName": ...}]

Usage:
    line = state_rows_line(3, progress_json)   # None when the query keeps no state
    counts = state_rows_in(spark_log_text)     # {3: [{"operatorName": ..., "numRowsTotal": 5, ...}]}
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ROW_METRICS", "state_rows_in", "state_rows_line"]

# The counts kept from each operator's entry in the progress report.
ROW_METRICS = ("operatorName", "numRowsTotal", "numRowsUpdated", "numRowsRemoved")

_LINE = re.compile(r"batch (\d+) state rows: (\[.*\])$", re.MULTILINE)


def state_rows_line(batch_id: int, progress: dict[str, Any]) -> str | None:
    """The line for a batch's progress report (its JSON, parsed); None without state."""
    operators = progress.get("stateOperators") or []
    if not operators:
        return None
    kept = [{k: op[k] for k in ROW_METRICS if k in op} for op in operators]
    return f"batch {batch_id} state rows: {json.dumps(kept)}"


def state_rows_in(text: str) -> dict[int, list[dict[str, Any]]]:
    """Every batch's counts in `text` (spark.log), by batch id; a batch logged twice (a
    replay after a restart) keeps its later line."""
    return {int(m.group(1)): json.loads(m.group(2)) for m in _LINE.finditer(text)}
