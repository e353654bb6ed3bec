"""benchmarks/change_costs.py's pure parts: which pairs, each pair's OLD, a report's row."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.change_costs import CHANGES, ROOT, _old_of, _pairs, _row


def test_pairs_are_named_by_number_and_a_wrong_number_is_one_line() -> None:
    assert [p.name[:2] for p in _pairs("02,11")] == ["02", "11"]
    assert len(_pairs("all")) == len([p for p in CHANGES.iterdir() if p.is_dir()]) >= 10
    with pytest.raises(SystemExit, match="name pairs by their number"):
        _pairs("99")


def test_each_pair_changes_the_old_query_its_readme_names() -> None:
    (window,) = _pairs("07")
    assert _old_of(window) == window / "old.py"
    (stateful,) = _pairs("10")
    assert _old_of(stateful) == ROOT / "queries" / "sessions.py"
    (added,) = _pairs("01")
    assert _old_of(added) == ROOT / "queries" / "count_per_key.py"


def test_a_reports_row_says_the_verdict_and_the_time_against_two_minutes() -> None:
    result = {
        "duration_sec": 90.0,
        "verdict": "failed",
        "facts": {
            "change_verdict": {"kind": "refused"},
            "time_spent": {
                "kafka start": {"count": 1, "sec": 6.0},
                "spark start": {"count": 1, "sec": 20.0},
                "spark start without output": {"count": 1},
                "oracle": {"count": 1, "sec": 8.0},
            },
        },
    }
    line, seconds = _row(Path("02-count-to-sum"), result)
    assert seconds == 90.0
    assert line == "| `02-count-to-sum` | refused | 90.0 | 6.0 | 2 | 20.0 | 8.0 | 0.75 |"
