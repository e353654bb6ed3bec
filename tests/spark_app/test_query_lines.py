"""check-query's line, read back by the run: round trip, with and without what it depends on."""

from __future__ import annotations

import pytest

from spark_app.lines.query_lines import QueryChecked, checked_line, parse_checked_line


@pytest.mark.parametrize(
    "checked",
    [
        QueryChecked("queries/count_per_key.py", "update", ("bucket",)),
        QueryChecked(
            "/tmp/x y/q.py", "append", ("window_start", "city"), "a watermark in append mode"
        ),
        QueryChecked(
            "q.py", "complete", ("k",), "a watermark in append mode and the processing time"
        ),
    ],
)
def test_the_line_reads_back_as_what_was_checked(checked: QueryChecked) -> None:
    assert parse_checked_line("noise\n" + checked_line(checked) + "\n") == checked


def test_other_text_is_no_checked_line() -> None:
    assert parse_checked_line("spark_app: QUERY_MODULE: q.py: has no KEY") is None
