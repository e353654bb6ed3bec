"""The verifier on crafted output logs: what a user would see after each kind of trouble."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.checker.verify import ValueRange, ranges_of, verify, verify_file
from scenarios.cli import run_cli

STAMP = "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: "


def pair(count: int, value: int, key: int | None = None, topic: str = "Experience") -> list[str]:
    key = value if key is None else key
    return [f"{STAMP}Count = {count}\n", f"{STAMP}{topic}: {key} -> {value}\n"]


def log_of(pairs: list[tuple[int, int]]) -> list[str]:
    return [line for count, value in pairs for line in pair(count, value)]


def test_clean_log_is_ok() -> None:
    report = verify(log_of([(n, n) for n in range(1, 891)]))
    assert report.ok
    assert (report.messages, report.distinct, report.highest, report.final_count) == (
        890,
        890,
        890,
        890,
    )
    assert report.missing == () and report.duplicated == {} and report.count_breaks == ()


def test_empty_log_is_not_ok_and_says_nothing_was_seen() -> None:
    report = verify([])
    assert not report.ok and report.messages == 0 and report.highest is None
    assert "no output lines at all" in "\n".join(report.summary_lines())


def test_gap_is_reported_as_a_range_and_count_keeps_running() -> None:
    # failOnDataLoss=false: values 6..9 aged out, the count goes on without them.
    pairs = [(n, n) for n in range(1, 6)] + [(n - 4, n) for n in range(10, 13)]
    report = verify(log_of(pairs))
    assert report.missing == (ValueRange(6, 9),)
    assert report.missing_count == 4
    assert report.counts_consistent and not report.ok


def test_duplicates_are_counted_and_a_count_rewind_is_flagged() -> None:
    # at-least-once sink: the batch holding 4..5 was written again after a crash.
    pairs = [(n, n) for n in range(1, 6)] + [(4, 4), (5, 5), (6, 6)]
    report = verify(log_of(pairs))
    assert report.duplicated == {4: 2, 5: 2}
    assert [(b.kind, b.value, b.expected, b.actual) for b in report.count_breaks] == [
        ("rewind", 4, 6, 4)
    ]
    assert report.missing == () and not report.ok


def test_count_reset_names_the_value_where_state_was_lost() -> None:
    # hard reset with earliest: count starts again at 1 on value 8, values 8..10 processed twice.
    pairs = [(n, n) for n in range(1, 11)] + [(n - 7, n) for n in range(8, 14)]
    report = verify(log_of(pairs))
    assert report.count_resets == (8,)
    assert report.duplicated == {8: 2, 9: 2, 10: 2}
    assert report.final_count == 6


def test_count_jump_is_flagged() -> None:
    report = verify(log_of([(1, 1), (2, 2), (5, 3)]))
    assert [(b.kind, b.expected, b.actual) for b in report.count_breaks] == [("jump", 3, 5)]
    assert report.exactly_once and not report.ok


def test_negative_keys_count_by_value() -> None:
    lines = pair(1, 1) + pair(2, 2, key=-2) + pair(3, 3)
    report = verify(lines)
    assert report.ok and report.highest == 3


def test_other_topic_names_are_read() -> None:
    lines = pair(1, 1, topic="Experience-short_retention.1") + pair(2, 2, topic="x")
    assert verify(lines).ok


def test_lines_that_are_not_output_lines_make_it_not_ok() -> None:
    lines = ["hello\n", "\n", "[WARN] something [StreamingOutput]: Count = oops\n"]
    lines += pair(1, 1) + ["noise between pairs\n"] + pair(2, 2)
    report = verify(lines)
    assert report.exactly_once and not report.ok
    assert report.ignored_lines == 3 and report.first_ignored == (1, "hello")  # blank lines skip
    assert "3 line(s) are not output lines, the first at line 1: 'hello'" in report.summary_lines()


def test_blank_lines_alone_do_not_spoil_a_good_log() -> None:
    assert verify(pair(1, 1) + ["\n", "   \n"] + pair(2, 2)).ok


def test_a_huge_value_is_a_gap_not_a_memory_error() -> None:
    report = verify(pair(1, 1) + pair(2, 3_000_000_000))
    assert report.missing == (ValueRange(2, 2_999_999_999),)
    assert report.missing_count == 2_999_999_998 and not report.ok


def test_foreign_messages_are_counted_but_not_checked() -> None:
    lines = (
        pair(1, 1)
        + [
            f"{STAMP}Count = 2\n",
            f'{STAMP}Experience: "hi" -> "hello\\u0000"\n',
            f"{STAMP}Count = 3\n",
            f"{STAMP}Experience: null -> null\n",
        ]
        + pair(4, 2)
    )
    report = verify(lines)
    assert report.ok and report.foreign_messages == 2 and report.final_count == 4
    assert report.distinct == 2 and report.highest == 2


def test_count_without_its_message_is_reported() -> None:
    lines = pair(1, 1) + [f"{STAMP}Count = 2\n"] + pair(2, 2)
    report = verify(lines)
    assert [(u.line, u.problem) for u in report.unpaired] == [(3, "count without message")]
    assert not report.ok


def test_torn_last_count_is_reported() -> None:
    lines = pair(1, 1) + [f"{STAMP}Count = 2\n"]
    report = verify(lines)
    assert [u.problem for u in report.unpaired] == ["count without message"]


def test_message_without_count_is_reported() -> None:
    lines = pair(1, 1) + [f"{STAMP}Experience: 2 -> 2\n"]
    report = verify(lines)
    assert [u.problem for u in report.unpaired] == ["message without count"]
    assert report.exactly_once and not report.ok


def test_missing_from_the_start_is_reported() -> None:
    report = verify(log_of([(1, 4), (2, 5)]))
    assert report.missing == (ValueRange(1, 3),)


def test_ranges_of_folds_values() -> None:
    assert ranges_of([7, 1, 2, 3, 3, 9, 10]) == (
        ValueRange(1, 3),
        ValueRange(7, 7),
        ValueRange(9, 10),
    )
    assert str(ValueRange(6, 9)) == "6..9" and str(ValueRange(4, 4)) == "4"
    assert 7 in ValueRange(6, 9) and 10 not in ValueRange(6, 9)


def test_report_is_json_ready() -> None:
    report = verify(log_of([(1, 1), (2, 2), (1, 2)]))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["duplicated"] == [{"value": 2, "times": 2}]
    assert data["count_resets"] == [2]


def test_verify_file_and_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.log"
    good.write_text("".join(log_of([(1, 1), (2, 2)])))
    bad = tmp_path / "bad.log"
    bad.write_text("".join(log_of([(1, 1), (2, 3)])))
    assert verify_file(good).ok
    assert run_cli(["verify", str(good)]) == 0
    assert run_cli(["verify", str(bad)]) == 1
    assert "missing 1 value(s): 2" in capsys.readouterr().out
    assert run_cli(["verify", str(bad), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["missing"] == [[2, 2]]
    assert run_cli(["verify", str(tmp_path / "absent.log")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read" in err[0]


def test_v2_lines_are_read_like_v1_lines() -> None:
    """The upgrade scenario's log: v1 lines, then the same query goes on in --output-format v2."""
    v2 = [
        f"{STAMP}Count = 3\n",
        f"{STAMP}v2 Experience-upgrade-17-0@2: -3 -> 3\n",
        f"{STAMP}Count = 4\n",
        f"{STAMP}v2 Experience-1@0: 4 -> 4\n",
    ]
    report = verify(log_of([(1, 1), (2, 2)]) + v2)
    assert report.ok and report.values == (1, 2, 3, 4)
    assert (report.v2_messages, report.ignored_lines) == (2, 0)
    assert report.to_dict()["v2_messages"] == 2


def test_a_v2_line_counted_twice_is_a_duplicate() -> None:
    report = verify(
        log_of([(1, 1), (2, 2)]) + [f"{STAMP}Count = 1\n", f"{STAMP}v2 Experience-0@1: 2 -> 2\n"]
    )
    assert report.duplicated == {2: 2} and report.count_resets == (2,)


def test_cli_never_says_ok_for_what_is_not_an_output_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "binary.log").write_bytes(bytes(range(256)) * 20)
    (tmp_path / "spark.log").write_text("26/11/22 23:47:24 INFO Master: Started daemon\n" * 5)
    (tmp_path / "huge.log").write_text("".join(pair(1, 3_000_000_000)))
    for name in ("empty", "binary", "spark", "huge"):
        assert run_cli(["verify", str(tmp_path / f"{name}.log")]) == 1, name
        assert capsys.readouterr().out.startswith("NOT OK"), name


def test_verify_says_which_file_and_how_many_runs_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's run (values 1..33) then the README's terminals on a new checkpoint, whose
    count starts over at 1 from the earliest value Kafka kept (15): two runs in one log."""
    log = tmp_path / "log" / "streaming-output.log"
    log.parent.mkdir()
    demo = [(n, n) for n in range(1, 34)]
    by_hand = [(n - 14, n) for n in range(15, 21)]
    log.write_text("".join(log_of(demo + by_hand)))
    assert run_cli(["verify", str(log)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "NOT OK"
    assert out[1] == (
        f"read {log}: 2 runs (the count started over at 1 at value 15): earlier "
        f"runs are mixed in; to check a new run alone, start clean with `uv run "
        f"python -m spark_app reset --log-dir {log.parent} (and the app's "
        f"--checkpoint-dir)`"
    )
    assert run_cli(["verify", str(log), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["file"], data["runs"]) == (str(log), 2)

    log.write_text("".join(log_of(demo)))
    assert run_cli(["verify", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "OK: every message exactly once, counts consistent",
        f"read {log}: 1 run",
    ]


def test_the_default_log_gets_the_plain_reset_command() -> None:
    from scenarios.checker.verify import reading_line

    report = verify(log_of([(1, 1), (2, 2), (1, 3), (1, 4)]))
    assert report.runs == 3 and verify([]).runs == 0
    line = reading_line(Path("log/streaming-output.log"), report)
    assert line.endswith("start clean with `uv run python -m spark_app reset`")
    assert "3 runs (the count started over at 1 at values 3, 4)" in line
