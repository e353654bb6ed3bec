"""The app's crash line on a negative key reads back as the key, value and mode it names
(the poison-pill scenario reads it); a reworded line is not read."""

from __future__ import annotations

from spark_app.query.negative_key import CRASH, CrashLine, crash_line_in


def test_the_crash_line_reads_back() -> None:
    line = CrashLine("-7", "7", "crash-always")
    assert crash_line_in(f"Count = 6\n{CRASH.text(line)}\n") == line


def test_a_reworded_crash_line_is_not_read() -> None:
    text = CRASH.text(CrashLine("-7", "7", "crash-always"))
    assert crash_line_in(text.replace("Negative key", "negative key")) is None
    assert crash_line_in("Count = 6") is None
