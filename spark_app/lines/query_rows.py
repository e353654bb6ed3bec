"""A user's query's rows as the app writes them and everyone reads them: JSON lines, a file per
batch.

With `--query FILE.py` the app's exactly-once sink writes each batch's rows to
`<log-dir>/query-output/batch-<id>.jsonl`, one JSON object per row with the batch id in
`batch_id`, the file written whole or not at all: a replayed batch writes the same file again,
so the folder holds each batch once (exactly once, idempotent on the batch id). The oracle's
evaluation writes the rows it expects in the same form, and the checker reads both. A reader
takes the folder with pandas:

    files = sorted(Path("log/query-output").glob("batch-*.jsonl"))
    rows = pandas.concat(pandas.read_json(f, lines=True) for f in files)

Values are written as JSON has them: a timestamp as its ISO text, bytes as UTF-8 text, a struct
as an object. No pyspark here: the checker reads without Spark.

Usage:
    path = batch_file(folder, 7)
    text = rows_text([{"bucket": 1, "records": 4}], batch_id=7)
    written = read_written(folder)        # every row of every batch, with its batch_id
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

__all__ = [
    "BATCH_COLUMN",
    "QUERY_OUTPUT_DIR",
    "batch_file",
    "json_value",
    "read_rows",
    "read_written",
    "rows_text",
]

QUERY_OUTPUT_DIR = "query-output"
BATCH_COLUMN = "batch_id"
_BATCH_GLOB = "batch-*.jsonl"


def batch_file(folder: Path, batch_id: int) -> Path:
    """The file batch `batch_id`'s rows go to (zero-padded, so names sort in batch order)."""
    return folder / f"batch-{batch_id:08d}.jsonl"


def json_value(value: Any) -> Any:
    """A value of a row as JSON holds it: the same text from Spark, pandas or Python."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, int):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, Decimal):
        return str(value)
    if hasattr(value, "asDict"):  # a struct, as a Spark Row
        return {k: json_value(v) for k, v in value.asDict().items()}
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if hasattr(value, "isoformat"):  # pandas' Timestamp, numpy's datetime64 through pandas
        return json_value(value.to_pydatetime() if hasattr(value, "to_pydatetime") else str(value))
    if hasattr(value, "item"):  # numpy's scalars
        return json_value(value.item())
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else value
        return [json_value(v) for v in items]
    return str(value)


def rows_text(rows: Iterable[Mapping[str, Any]], batch_id: int | None = None) -> str:
    """The rows as JSON lines, each with `batch_id` when one is given."""
    lines = []
    for row in rows:
        data = {str(k): json_value(v) for k, v in row.items()}
        if batch_id is not None:
            data[BATCH_COLUMN] = batch_id
        lines.append(json.dumps(data, sort_keys=True, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of one file of JSON lines."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_written(folder: Path) -> list[dict[str, Any]]:
    """Every row the sink wrote, batch by batch in order; none when nothing was written."""
    if not folder.is_dir():
        return []
    return [row for path in sorted(folder.glob(_BATCH_GLOB)) for row in read_rows(path)]
