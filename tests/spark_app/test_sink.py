"""The output sinks without Spark: the seed's line format, the journal, replay and roll-back."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from spark_app.lines.output_line import OutputRow, format_lines
from spark_app.query.sink import AtLeastOnceSink, ExactlyOnceSink, count_after

NOW = datetime(2016, 1, 8, 16, 18, 10, 25000)


def rows(first: int, last: int, key_sign: int = 1) -> list[OutputRow]:
    return [OutputRow("Experience", str(key_sign * n), str(n), n) for n in range(first, last + 1)]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_format_is_the_seeds_two_lines_with_comma_millis() -> None:
    text = format_lines(
        [OutputRow("Experience", "890", "890", 890), OutputRow("Experience", "-891", "891", 891)],
        NOW,
    )
    assert text.splitlines() == [
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = 890",
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Experience: 890 -> 890",
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = 891",
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Experience: -891 -> 891",
    ]


def write(sink: ExactlyOnceSink | AtLeastOnceSink, batch_id: int, batch: list[OutputRow]) -> bool:
    with sink.batch(batch_id) as out:
        if out is None:
            return False
        out.write(format_lines(batch, NOW))
    return True


def test_exactly_once_skips_a_replayed_batch(tmp_path: Path) -> None:
    out = tmp_path / "streaming-output.log"
    sink = ExactlyOnceSink(out, lambda: "q1")
    assert write(sink, 0, rows(1, 3))
    assert write(sink, 1, rows(4, 5))
    assert not write(sink, 1, rows(4, 5))  # Spark replays the uncommitted batch after a crash
    assert len(lines(out)) == 10


def test_exactly_once_rolls_back_a_half_written_batch(tmp_path: Path) -> None:
    out = tmp_path / "streaming-output.log"
    sink = ExactlyOnceSink(out, lambda: "q1")
    write(sink, 0, rows(1, 2))
    # The app dies after part of batch 1 is on disk: the journal still says "writing".
    with pytest.raises(RuntimeError):
        with sink.batch(1) as half:
            assert half is not None
            half.write(format_lines(rows(3, 4), NOW))
            half.write("[INFO] [2016-01-08 16:18:10,025] [StreamingOu")  # torn line
            half.flush()
            raise RuntimeError("killed")
    assert len(lines(out)) == 9
    restarted = ExactlyOnceSink(out, lambda: "q1")
    assert write(restarted, 1, rows(3, 5))
    counts = [line.rsplit(" ", 1)[1] for line in lines(out) if "Count = " in line]
    assert counts == ["1", "2", "3", "4", "5"]


def test_exactly_once_starts_over_for_a_new_query(tmp_path: Path) -> None:
    out = tmp_path / "streaming-output.log"
    write(ExactlyOnceSink(out, lambda: "old"), 5, rows(1, 2))
    # Checkpoint deleted: the new query's batch 0 must be written, the old lines stay.
    assert write(ExactlyOnceSink(out, lambda: "new"), 0, rows(1, 1))
    assert len(lines(out)) == 6


def test_at_least_once_writes_a_replayed_batch_again(tmp_path: Path) -> None:
    out = tmp_path / "streaming-output.log"
    sink = AtLeastOnceSink(out)
    write(sink, 0, rows(1, 2))
    write(sink, 0, rows(1, 2))
    assert len(lines(out)) == 8


def test_v2_format_names_partition_and_offset() -> None:
    text = format_lines(
        [OutputRow("Experience", "-42", "42", 42, partition=0, offset=41)], NOW, output_format="v2"
    )
    assert text.splitlines() == [
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = 42",
        "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: v2 Experience-0@41: -42 -> 42",
    ]


def test_exactly_once_holds_across_a_format_change(tmp_path: Path) -> None:
    """v1 half-writes batch 1 and dies; v2 (same query) rolls it back and writes it in v2."""
    from scenarios.checker.verify import verify_file

    out = tmp_path / "streaming-output.log"
    write(ExactlyOnceSink(out, lambda: "q1"), 0, rows(1, 2))
    with pytest.raises(RuntimeError):
        with ExactlyOnceSink(out, lambda: "q1").batch(1) as half:
            assert half is not None
            half.write(format_lines(rows(3, 3), NOW))
            raise RuntimeError("stopped mid-batch")
    upgraded = ExactlyOnceSink(out, lambda: "q1")
    with upgraded.batch(1) as again:
        assert again is not None
        again.write(
            format_lines(
                [r._replace(partition=0, offset=r.count - 1) for r in rows(3, 4)],
                NOW,
                output_format="v2",
            )
        )
    report = verify_file(out)
    assert report.ok and report.values == (1, 2, 3, 4) and report.v2_messages == 2


def test_foreign_messages_are_written_escaped_and_bounded_and_verified() -> None:
    from scenarios.checker.verify import verify
    from spark_app.lines.output_line import FOREIGN_FIELD_CHARS, output_field
    from spark_app.query.negative_key import is_negative

    assert [output_field(t) for t in ("42", "-7", None)] == ["42", "-7", "null"]
    assert output_field("a\nb\x00c") == '"a\\nb\\u0000c"'
    huge = output_field("A" * 1_000_000)
    assert len(huge) == FOREIGN_FIELD_CHARS + len('"\\u2026"')
    rows = [
        OutputRow("Experience", "1", "1", 1),
        OutputRow("Experience", "-x\n", "\x00" * 10, 2),
        OutputRow("Experience", "2", "2", 3),
    ]
    text = format_lines(rows, datetime(2016, 1, 8, 16, 18, 10, 25000))
    assert text.count("\n") == 6 and "\x00" not in text
    report = verify(text.splitlines(True))
    assert report.ok and report.foreign_messages == 1 and report.final_count == 3
    assert not is_negative(rows[1]) and is_negative(OutputRow("Experience", " -12", "12", 4))


def test_the_count_after_a_batch_is_read_back_from_what_it_wrote(tmp_path: Path) -> None:
    """Under Spark Connect the app's batch line reads the count the server's process wrote."""
    out = tmp_path / "streaming-output.log"
    sink = ExactlyOnceSink(out, lambda: "q1")
    write(sink, 0, rows(1, 3))
    assert count_after(out, 0) == 3
    write(sink, 1, rows(4, 7))
    assert (count_after(out, 1), count_after(out, 0)) == (7, None)  # only the last batch's
    with pytest.raises(RuntimeError):
        with sink.batch(2) as half:
            assert half is not None
            half.write(format_lines(rows(8, 8), NOW))
            raise RuntimeError("killed mid-batch")
    assert count_after(out, 2) is None  # half written: no count to show yet
    assert count_after(tmp_path / "none.log", 0) is None
