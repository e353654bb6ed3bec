"""The output line's one owner: whatever format_lines writes, parse_line reads back."""

from __future__ import annotations

from datetime import datetime

import pytest

from spark_app.lines.output_line import (
    CountLine,
    MessageLine,
    OutputRow,
    format_event_line,
    format_lines,
    parse_line,
    written_at,
)

NOW = datetime(2016, 1, 8, 16, 18, 10, 25000)


@pytest.mark.parametrize(
    "row, output_format, expected",
    [
        (OutputRow("Experience", "890", "890", 890), "v1", MessageLine("Experience", 890, key=890)),
        (
            OutputRow("Experience", "-891", "891", 891),
            "v1",
            MessageLine("Experience", 891, key=-891),
        ),
        (
            OutputRow("Experience-x.1", "7", "7", 1, 2, 6),
            "v2",
            MessageLine("Experience-x.1", 7, True, 2, 6, key=7),
        ),
        (
            OutputRow("Experience", "k", "not a number\n\x00", 3),
            "v1",
            MessageLine("Experience", None),
        ),
        (
            OutputRow("Experience", None, None, 4, 0, 3),
            "v2",
            MessageLine("Experience", None, True, 0, 3),
        ),
    ],
)
def test_what_is_written_is_read_back(
    row: OutputRow, output_format: str, expected: MessageLine
) -> None:
    count, message = format_lines([row], NOW, output_format).splitlines()
    assert count == f"[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = {row.count}"
    assert parse_line(count) == CountLine(row.count)
    assert parse_line(message) == expected


def test_lines_the_app_does_not_write_are_none() -> None:
    for text in ("", "hello", "[StreamingOutput]: Count = x", "[StreamingOutput]: E: 1 -> two"):
        assert parse_line(text) is None


def test_when_a_line_was_written_is_read_back_to_the_millisecond() -> None:
    at = datetime(2026, 11, 25, 18, 40, 2, 7000)
    for line in (
        *format_lines([OutputRow("Experience", "1", "1", 1)], at).splitlines(),
        format_event_line("idle-timer", 1, "no message", at).rstrip("\n"),
    ):
        assert written_at(line) == at
    assert written_at("Count = 1") is None and written_at("") is None
