"""A query's rows, written per batch and read back by one owner (spark_app/lines/query_rows.py)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from pathlib import Path

from spark_app.lines.query_rows import batch_file, json_value, read_rows, read_written, rows_text


def test_rows_round_trip_with_their_batch_id(tmp_path: Path) -> None:
    folder = tmp_path / "query-output"
    folder.mkdir()
    batch_file(folder, 10).write_text(rows_text([{"bucket": 1, "records": 4}], batch_id=10))
    batch_file(folder, 9).write_text(rows_text([{"bucket": 0, "records": 3}], batch_id=9))
    assert read_written(folder) == [
        {"batch_id": 9, "bucket": 0, "records": 3},
        {"batch_id": 10, "bucket": 1, "records": 4},
    ]
    assert read_rows(batch_file(folder, 10)) == [{"batch_id": 10, "bucket": 1, "records": 4}]


def test_values_read_as_json_holds_them() -> None:
    assert json_value(datetime(2026, 11, 29, 10, 0, 5)) == "2026-11-29T10:00:05"
    assert json_value(b"42") == "42"
    assert json_value(Decimal("1.50")) == "1.50"
    assert json_value(float("nan")) is None
    assert json_value({"start": datetime(2026, 1, 1)}) == {"start": "2026-01-01T00:00:00"}


def test_pandas_and_numpy_values_read_as_pythons() -> None:
    import numpy as np
    import pandas as pd

    assert json_value(np.int64(7)) == 7 and isinstance(json_value(np.int64(7)), int)
    assert json_value(pd.Timestamp("2026-11-29 10:00:05")) == "2026-11-29T10:00:05"


def test_nothing_written_reads_as_no_rows(tmp_path: Path) -> None:
    assert read_written(tmp_path / "none") == []
