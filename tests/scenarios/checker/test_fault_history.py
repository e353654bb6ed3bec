"""The nemesis's history (scenarios/checker/fault_history.py): written, read back, paired."""

from __future__ import annotations

from pathlib import Path

from scenarios.checker.fault_history import (
    HistoryEntry,
    fault_spans,
    format_entry,
    parse_entry,
    read_history,
    recoveries,
)

ENTRIES = [
    HistoryEntry(0.0, 1000.0, "run", detail="uv run python -m scenarios nemesis --seed 7"),
    HistoryEntry(0.0, 1000.0, "skip", kind="broker", detail="needs three brokers"),
    HistoryEntry(5.0, 1005.0, "start", detail="first start", pid=4242),
    HistoryEntry(
        20.0, 1020.0, "fault", 1, "pause", "the app's process group (pid 4242)", "SIGSTOP"
    ),
    HistoryEntry(31.5, 1031.5, "heal", 1, "pause", "the app's process group", "SIGCONT"),
    HistoryEntry(40.0, 1040.0, "fault", 2, "kill", "mid-batch", "landed mid-batch"),
    HistoryEntry(40.1, 1040.1, "start", detail="after fault #2 kill -9", pid=4300),
    HistoryEntry(40.1, 1040.1, "heal", 2, "kill", "mid-batch", "started again"),
    HistoryEntry(55.0, 1055.0, "fault", 3, "kafka-cut", "the app's link to Kafka"),
]


def test_entries_round_trip_through_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "nemesis-history.jsonl"
    path.write_text("".join(format_entry(e) + "\n" for e in ENTRIES))
    assert read_history(path) == ENTRIES


def test_a_torn_last_line_and_an_unknown_event_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "nemesis-history.jsonl"
    whole = format_entry(ENTRIES[2])
    path.write_text(
        whole + "\n" + '{"t":1,"wall":2,"event":"lunch"}\n' + format_entry(ENTRIES[3])[:20]
    )
    assert read_history(path) == [ENTRIES[2]]
    assert parse_entry("not json") is None
    assert read_history(tmp_path / "none.jsonl") == []


def test_empty_fields_are_left_out_of_a_line() -> None:
    assert format_entry(HistoryEntry(1.0, 2.0, "start", pid=7)) == (
        '{"t":1.0,"wall":2.0,"event":"start","pid":7}'
    )


def test_faults_pair_with_their_heals_and_one_never_healed_stays_open() -> None:
    spans = fault_spans(ENTRIES)
    assert [(s.number, s.kind, s.start, s.end) for s in spans] == [
        (1, "pause", 20.0, 31.5),
        (2, "kill", 40.0, 40.1),
        (3, "kafka-cut", 55.0, None),
    ]
    assert spans[0].healed == "SIGCONT" and spans[0].end_wall == 1031.5
    assert spans[0].words() == (
        "fault #1 pause (the app's process group (pid 4242)) at 20.0 s, healed at 31.5 s: SIGCONT"
    )
    assert spans[2].words().endswith("not healed")


def test_recovery_is_the_time_from_a_heal_to_the_next_commit_past_it() -> None:
    spans = fault_spans(ENTRIES)
    samples = [(30.0, 10), (31.0, 10), (33.0, 10), (34.5, 12), (41.0, 12), (50.0, 15)]
    assert recoveries(spans, samples) == {"pause": [3.0], "kill": [9.9]}
    assert recoveries(spans, [(30.0, 10)]) == {"pause": [None], "kill": [None]}


def test_a_recovery_cut_short_by_the_next_fault_is_not_counted() -> None:
    spans = fault_spans(ENTRIES)
    # The kill healed at 40.1 s; the app counted again only at 60 s, after fault 3 (at 55 s).
    samples = [(30.0, 10), (34.5, 12), (41.0, 12), (60.0, 15)]
    assert recoveries(spans, samples) == {"pause": [3.0], "kill": [None]}
