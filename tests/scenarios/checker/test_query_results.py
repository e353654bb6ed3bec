"""A user's query held against its batch result, per output mode, as a reader would check it."""

from __future__ import annotations

import pytest

from scenarios.checker.query_results import compare


def rows(batch: int, *pairs: tuple[int, int]) -> list[dict[str, int]]:
    return [{"bucket": b, "records": n, "batch_id": batch} for b, n in pairs]


EXPECTED = [{"bucket": 0, "records": 4}, {"bucket": 1, "records": 3}]


def test_update_mode_holds_the_last_row_per_key() -> None:
    written = rows(0, (0, 1), (1, 1)) + rows(1, (0, 3), (1, 3)) + rows(2, (0, 4))
    verdict = compare(EXPECTED, written, mode="update", key=["bucket"])
    assert verdict.ok, verdict.summary_lines()
    assert verdict.summary_lines()[0].startswith("OK: update mode")


def test_update_mode_names_a_stale_count_with_its_key() -> None:
    written = rows(0, (0, 1), (1, 3)) + rows(1, (0, 3))
    verdict = compare(EXPECTED, written, mode="update", key=["bucket"])
    assert not verdict.ok
    [wrong] = verdict.different
    assert wrong.key == (0,)
    assert (
        "bucket=0: expected {bucket: 0, records: 4}, written {bucket: 0, records: 3}"
        in (verdict.summary_lines()[1])
    )


def test_update_mode_names_a_key_never_written_and_one_not_in_the_batch_result() -> None:
    written = rows(0, (0, 4), (7, 1))
    verdict = compare(EXPECTED, written, mode="update", key=["bucket"])
    assert [p.key for p in verdict.missing] == [(1,)]
    assert [p.key for p in verdict.extra] == [(7,)]


def test_complete_mode_reads_only_the_last_batch() -> None:
    written = rows(0, (0, 1)) + rows(1, (0, 4), (1, 3))
    assert compare(EXPECTED, written, mode="complete", key=["bucket"]).ok
    stale = rows(0, (0, 4), (1, 3)) + rows(1, (0, 4))
    assert [p.key for p in compare(EXPECTED, stale, mode="complete", key=["bucket"]).missing] == [
        (1,)
    ]


def test_append_mode_finds_a_row_written_twice_and_one_lost() -> None:
    expected = [{"value": v} for v in (1, 2, 3, 4)]
    written = [{"value": 1, "batch_id": 0}, {"value": 2, "batch_id": 0}]
    written += [{"value": 2, "batch_id": 1}, {"value": 4, "batch_id": 1}]
    verdict = compare(expected, written, mode="append", key=["value"])
    assert [p.key for p in verdict.doubled] == [(2,)] and verdict.doubled[0].times == 2
    assert [p.key for p in verdict.missing] == [(3,)]
    assert "value=2: written 2 times" in " ".join(verdict.summary_lines())


def test_a_key_that_names_several_rows_is_said_with_what_to_do() -> None:
    expected = [{"bucket": 0, "records": 1}, {"bucket": 0, "records": 2}]
    verdict = compare(expected, [], mode="update", key=["bucket"])
    assert not verdict.ok
    assert "does not name one row of the batch result" in verdict.problems[0]
    assert "name every column that tells two result rows apart" in verdict.problems[0]


WINDOWS = [{"window_start": f"2026-11-29T10:00:{s:02d}", "records": 10} for s in (0, 10, 20, 30)]


def window_rows(*counts: tuple[int, int]) -> list[dict[str, object]]:
    return [
        {"window_start": f"2026-11-29T10:00:{s:02d}", "records": n, "batch_id": i}
        for i, (s, n) in enumerate(counts)
    ]


def test_a_watermarked_append_may_leave_its_last_windows_unwritten() -> None:
    written = window_rows((0, 10), (10, 10))
    verdict = compare(
        WINDOWS, written, mode="append", key=["window_start"], boundary_dependent=True
    )
    assert verdict.ok, verdict.summary_lines()
    assert len(verdict.not_yet_written) == 2
    assert "still open when the run stopped" in " ".join(verdict.summary_lines())


def test_a_watermarked_append_may_not_skip_a_window_in_the_middle() -> None:
    written = window_rows((0, 10), (20, 10))
    verdict = compare(
        WINDOWS, written, mode="append", key=["window_start"], boundary_dependent=True
    )
    assert not verdict.ok and [p.key for p in verdict.missing] == [("2026-11-29T10:00:10",)]


@pytest.mark.parametrize("dropped, ok", [(1, True), (0, False)])
def test_a_window_with_fewer_records_only_where_spark_dropped_late_ones(
    dropped: int, ok: bool
) -> None:
    written = window_rows((0, 10), (10, 9))
    verdict = compare(
        WINDOWS,
        written,
        mode="append",
        key=["window_start"],
        boundary_dependent=True,
        late_dropped=dropped,
    )
    assert verdict.ok is ok


def test_a_watermarked_append_may_not_write_a_window_twice() -> None:
    written = window_rows((0, 10), (0, 10))
    verdict = compare(
        WINDOWS, written, mode="append", key=["window_start"], boundary_dependent=True
    )
    assert not verdict.ok and verdict.doubled[0].times == 2


def test_an_unknown_output_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="one of append, update, complete"):
        compare([], [], mode="replace", key=["x"])
