"""Where a scenario's time goes: Spark starts read from the output log's own time stamps."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from scenarios.engine.stage.time_spent import TimeSpent, first_output_after
from spark_app.lines.output_line import OutputRow, format_lines

T0 = datetime(2026, 11, 25, 18, 0, 0)


def at(sec: float) -> datetime:
    return T0 + timedelta(seconds=sec)


def test_a_start_lasts_until_its_first_output_and_a_silent_one_is_none() -> None:
    # Launched at 0 (output at 9), at 20 (crashed, no output), at 30 (output at 38.5).
    found = first_output_after([at(0), at(20), at(30)], [at(9), at(9.5), at(38.5), at(39)])
    assert found == [9.0, None, 8.5]


def test_the_summary_counts_kafka_starts_spark_starts_and_stops(tmp_path: Path) -> None:
    spent = TimeSpent(launches=[at(0), at(20)])
    with spent.timed("kafka start"):
        pass
    log = tmp_path / "streaming-output.log"
    log.write_text(
        format_lines([OutputRow("Experience", "1", "1", 1)], at(7))
        + format_lines([OutputRow("Experience", "2", "2", 2)], at(31))
    )
    summary = spent.summary(log)
    assert summary["kafka start"]["count"] == 1
    assert summary["spark start"] == {"count": 2, "sec": 18.0, "max_sec": 11.0}
    assert "spark start without output" not in summary
    assert TimeSpent(launches=[at(0)]).summary(tmp_path / "missing.log") == {
        "spark start without output": {"count": 1}
    }


def test_with_a_query_a_start_lasts_until_its_sink_puts_a_batch_file_in_place(
    tmp_path: Path,
) -> None:
    """A user's query writes no output log: its batch files' times say when each start wrote."""
    folder = tmp_path / "query-output"
    folder.mkdir()
    for name, sec in (("batch-0.jsonl", 6), ("batch-1.jsonl", 27.5), (".batch-2.jsonl.tmp", 40)):
        path = folder / name
        path.write_text("{}\n")
        stamp = at(sec).timestamp()
        os.utime(path, (stamp, stamp))
    spent = TimeSpent(launches=[at(0), at(20), at(35)])
    summary = spent.summary(tmp_path / "no-output.log", query_output=folder)
    # The temporary file is the sink's write in progress, not a batch put in place.
    assert summary["spark start"] == {"count": 2, "sec": 13.5, "max_sec": 7.5}
    assert summary["spark start without output"] == {"count": 1}
