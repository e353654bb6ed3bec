"""The demo's screen and status line, rendered into text as a user would read them."""

from __future__ import annotations

import io

from rich.console import Console

from scenarios.demo.state import (
    CheckpointView,
    Verdict,
    initial_state,
    on_producer_line,
    on_spark_exit,
    on_spark_line,
    on_spark_signal,
    on_spark_started,
    with_checkpoint,
    with_event,
    with_retention,
    with_verdict,
)
from scenarios.demo.view import render, retention_label, status_line


def _screen(state: object, width: int = 160) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(render(state))  # type: ignore[arg-type]
    return console.file.getvalue()  # type: ignore[attr-defined]


def _running_state():
    state = initial_state(15)
    for value in range(1, 13):
        state = on_producer_line(state, f"Experience [0:{value}]: {value} -> {value}")
    state = on_spark_started(state, pid=4242)
    state = on_spark_line(state, "batch 9: Experience-0 [9, 11) rows=2 count=11 took 50 ms")
    state = with_verdict(state, Verdict(True, "every message exactly once: 11 of 1..11 seen"))
    return with_checkpoint(state, CheckpointView("last committed batch 9: a restart resumes at Experience-0@11", 9))


def test_screen_shows_both_apps_verdict_checkpoint_and_keys() -> None:
    screen = _screen(_running_state())
    assert "earliest:latest  0:12" in screen
    assert "Experience [0:12]: 12 -> 12" in screen
    assert "up (pid 4242)" in screen
    assert "last batch 9   count 11" in screen
    assert "OK  every message exactly once" in screen
    assert "checkpoint last committed batch 9" in screen
    assert "retention 15 s" in screen
    for key in ("Enter", "kill -9", "delete checkpoint", "change retention", "quit"):
        assert key in screen


def test_screen_after_kill_says_down_and_why() -> None:
    state = on_spark_exit(on_spark_signal(_running_state(), "SIGKILL"), -9)
    state = with_event(state, "k: kill -9 of the Spark app's process group (pid 4242)")
    screen = _screen(state)
    assert "down: killed (kill -9)" in screen
    assert "Spark app up" not in screen
    assert "- k: kill -9 of the Spark app's process group (pid 4242)" in screen


def test_figures_fall_back_to_the_files_when_the_console_has_none() -> None:
    state = on_spark_started(_running_state(), pid=5)  # a new run has printed nothing yet
    state = with_verdict(state, Verdict(True, "ok", final_count=11))
    assert "last batch 9   count 11" in _screen(state)


def test_a_bad_verdict_shows_its_details() -> None:
    state = with_verdict(initial_state(15), Verdict(False, "missing 3 (4..6)", ("missing 3 value(s): 4..6",)))
    screen = _screen(state)
    assert "NOT OK  missing 3 (4..6)" in screen
    assert "missing 3 value(s): 4..6" in screen


def test_status_line_has_the_same_facts_in_plain_words() -> None:
    line = status_line(with_retention(_running_state(), 3600))
    assert line.startswith("producer up [0:12] retention 1 h | spark up batch 9 count 11 | ")
    assert "verdict OK every message exactly once" in line
    assert line.endswith("checkpoint last committed batch 9: a restart resumes at Experience-0@11")


def test_retention_label() -> None:
    assert [retention_label(s) for s in (15, 60, 90, 3600, 7200)] == ["15 s", "1 min", "90 s", "1 h", "2 h"]


def test_the_apps_last_words_are_shown_in_full_after_a_failure() -> None:
    reason = ("spark_app: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: offsets [240, 261) of "
              "Experience-0 are no longer in Kafka; restart with --fail-on-data-loss false")
    state = on_spark_started(initial_state(15), pid=7)
    state = on_spark_line(on_spark_line(state, "Traceback (most recent call last):"), reason)
    state = on_spark_exit(state, 1)
    screen = " ".join(_screen(state, width=100).split())
    assert "down: failed" in screen
    assert f"Spark app's last words: {reason}" in screen
    assert "last words" not in _screen(on_spark_started(state, pid=8))
