"""Each batch line carries the count of its own batch: Spark hands the listener a batch's
progress after the batch, when the next one may already have run (no Spark needed: the
handler writes as foreachBatch would, the listener gets the report as Spark would hand it)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from checkpoint_stores import CheckpointPlace
from spark_app.lines.batch_line import BatchLine, parse_batch_line
from spark_app.lines.output_line import OutputRow
from spark_app.query.batch_handler import BatchHandler
from spark_app.query.negative_key import NegativeKeyPolicy
from spark_app.query.progress import ProgressPrinter
from spark_app.settings import SparkAppSettings


def _handler(tmp_path: Path) -> BatchHandler:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "metadata").write_text(json.dumps({"id": "q-1"}))
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"), log_dir=tmp_path / "log"
    )
    return BatchHandler(settings, NegativeKeyPolicy("ignore", settings.log_dir, None))


def _rows(first: int, last: int) -> list[OutputRow]:
    """Values first..last with count = value, at offsets value - 1."""
    return [OutputRow("Experience", str(v), str(v), v, 0, v - 1) for v in range(first, last + 1)]


def _progress(batch_id: int, start: int, end: int) -> SimpleNamespace:
    """The listener's event for a batch, with the parts of Spark's progress report it reads."""
    report = {
        "batchId": batch_id,
        "numInputRows": end - start,
        "durationMs": {"triggerExecution": 40},
        "sources": [
            {
                "startOffset": {"Experience": {"0": start}},
                "endOffset": {"Experience": {"0": end}},
                "latestOffset": {"Experience": {"0": end}},
            }
        ],
    }
    return SimpleNamespace(progress=SimpleNamespace(json=json.dumps(report)))


def test_a_batch_line_printed_after_the_next_batch_ran_has_its_own_batchs_count(
    tmp_path: Path,
) -> None:
    """An attendee saw `batch 13: Experience-0 [27, 42) rows=15 count=43` where the output log
    has Count = 42 for value 42: the listener read the last count after batch 14 had run."""
    handler = _handler(tmp_path)
    printed: list[BatchLine] = []
    printer = ProgressPrinter(printed.append, handler.count_of)

    handler.write(13, _rows(28, 42))
    handler.write(14, _rows(43, 43))  # the next batch runs before batch 13's report arrives
    printer.onQueryProgress(_progress(13, 27, 42))
    printer.onQueryProgress(_progress(14, 42, 43))

    read_back = [parse_batch_line(line.plain()) for line in printed]
    assert [(line.batch_id, line.count) for line in read_back if line] == [(13, 42), (14, 43)]
    output = (tmp_path / "log" / "streaming-output.log").read_text()
    assert "Count = 42" in output and "Count = 43" in output
    handler.close()


def test_a_batch_without_rows_of_its_own_has_no_count(tmp_path: Path) -> None:
    handler = _handler(tmp_path)
    handler.write(3, _rows(1, 3))
    assert handler.count_of(3) == 3
    assert handler.count_of(4) is None  # not the previous batch's
