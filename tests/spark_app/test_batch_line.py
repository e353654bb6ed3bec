"""The batch line: what the app prints per batch reads back as the same facts (round trip), and a
reworded line is no longer read, so a change to its words fails here, not in a 20-minute run."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from spark_app.lines.batch_line import (
    BatchLine,
    Lag,
    batch_line_from_progress,
    durations_in_output,
    lag_in_output,
    late_in_output,
    parse_batch_line,
    parse_batch_lines,
)
from spark_app.offsets import TopicPartition

P = [TopicPartition("Experience", p) for p in range(3)]

LINES = [
    BatchLine(0, {}, {P[0]: 4, P[1]: 3}, 7, 7, 900),  # a new query's first batch: no start
    BatchLine(1, {P[0]: 4}, {P[0]: 6}, 2, 9, 80, Lag(12, 6.0, 0)),
    BatchLine(2, {P[0]: 6}, {P[0]: 6}, 0, None, 5),  # the count is not known yet: `count=?`
    BatchLine(3, {}, {}, 0, 9, 3),  # nothing planned: the ranges are `-`
    BatchLine(5, {P[0]: 6}, {P[0]: 9}, 3, None, 7, Lag(0, 0.0, 0), late=2),  # a query's: `late=2`
    BatchLine(
        4,
        {TopicPartition("Experience-kafka-outage-17", 1): 5},
        {TopicPartition("Experience-kafka-outage-17", 1): 8},
        3,
        12,
        1,
        Lag(1, 0.5, 0),
    ),
]


@pytest.mark.parametrize("line", LINES, ids=lambda line: f"batch {line.batch_id}")
def test_a_printed_batch_line_reads_back_as_the_same_facts(line: BatchLine) -> None:
    assert parse_batch_line(line.plain()) == line


def test_the_rich_line_shows_the_same_text() -> None:
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(LINES[1].rich())
    assert out.getvalue().strip() == LINES[1].plain()


def test_a_reworded_line_is_not_read() -> None:
    text = LINES[1].plain()
    for reworded in (
        text.replace("rows=", "records="),
        text.replace("took", "in"),
        text.replace("batch ", "micro-batch "),
        "Stopped cleanly.",
    ):
        assert parse_batch_line(reworded) is None


def test_the_console_read_back_batch_by_batch() -> None:
    output = "\n".join(
        ["WARNING: Using incubator modules", LINES[0].plain(), "Count = 3", LINES[1].plain(), ""]
    )
    assert parse_batch_lines(output) == LINES[:2]
    assert durations_in_output(output) == {0: 900, 1: 80}
    assert lag_in_output(output) == {1: 12}


def test_the_line_from_spark_progress_computes_the_lag() -> None:
    progress = {
        "batchId": 5,
        "numInputRows": 2,
        "durationMs": {"triggerExecution": 40},
        "sources": [
            {
                "startOffset": {"Experience": {"0": 10}},
                "endOffset": {"Experience": {"0": 12}},
                "latestOffset": {"Experience": {"0": 20}},
            }
        ],
    }
    line = batch_line_from_progress(progress, count=12)
    assert line.lag == Lag(8, 8.0, 8)
    assert parse_batch_line(line.plain()) == line


def test_records_dropped_as_late_are_summed_over_the_stateful_operators() -> None:
    progress = {
        "batchId": 6,
        "numInputRows": 3,
        "durationMs": {"triggerExecution": 40},
        "sources": [
            {"startOffset": {"Experience": {"0": 1}}, "endOffset": {"Experience": {"0": 4}}}
        ],
        "stateOperators": [{"numRowsDroppedByWatermark": 2}, {"numRowsDroppedByWatermark": 1}],
    }
    line = batch_line_from_progress(progress, count=None)
    assert line.late == 3 and " late=3 took " in line.plain()
    assert late_in_output(line.plain() + "\n" + LINES[0].plain()) == 3
