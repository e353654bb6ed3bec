"""The state rows line: written by the app's logger into spark.log as the listener writes it,
and read back from that file by batch, as the SPARK-53069 exhibit reads it."""

from __future__ import annotations

import logging
from pathlib import Path

from spark_app.lines.state_rows import state_rows_in, state_rows_line
from spark_app.runtime.log_file import log_to

# Two batches' progress reports as Spark's JSON has them (the parts the line keeps, and more).
OPERATOR = {
    "operatorName": "transformWithStateInPandasExec",
    "numRowsTotal": 5,
    "numRowsUpdated": 5,
    "numRowsRemoved": 0,
    "commitTimeMs": 41,
    "customMetrics": {"numValueStateVars": 1},
}


def test_a_batch_without_state_has_no_line() -> None:
    assert state_rows_line(3, {"stateOperators": []}) is None
    assert state_rows_line(3, {}) is None


def test_the_line_written_to_spark_log_is_read_back_by_batch(tmp_path: Path) -> None:
    log = tmp_path / "spark.log"
    logger = logging.getLogger("spark_app.test_state_rows")
    log_to(logger, log)
    try:
        for batch, total in ((1, 5), (2, 5), (3, 8)):
            line = state_rows_line(batch, {"stateOperators": [{**OPERATOR, "numRowsTotal": total}]})
            assert line is not None
            logger.info("%s", line)
        logger.info("batch 3 durations (ms): {}")  # another line of the same batch
    finally:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
    counts = state_rows_in(log.read_text(encoding="utf-8"))
    assert sorted(counts) == [1, 2, 3]
    assert counts[3] == [
        {
            "operatorName": "transformWithStateInPandasExec",
            "numRowsTotal": 8,
            "numRowsUpdated": 5,
            "numRowsRemoved": 0,
        }
    ]


def test_a_batch_logged_again_keeps_its_later_line() -> None:
    first = state_rows_line(4, {"stateOperators": [{**OPERATOR, "numRowsTotal": 5}]})
    again = state_rows_line(4, {"stateOperators": [{**OPERATOR, "numRowsTotal": 9}]})
    assert state_rows_in(f"{first}\n{again}\n")[4][0]["numRowsTotal"] == 9
