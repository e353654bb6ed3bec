"""The timer exhibit's pure parts, without Spark: which batches arm a timer, where each timer's
event fired, a phase's outcome and the exhibit's, held per line; and the app's option that lets
a timer be due at or before its batch's own time."""

from __future__ import annotations

from datetime import datetime

import pytest

from scenarios.catalog.museum.spark_56400 import (
    ARMED,
    BUG,
    PHASES,
    TWS,
    Firing,
    armed_timers,
    firings,
    outcome_of,
    phase_outcome,
)
from scenarios.checker.state_events import events_in_lines
from spark_app.checkpoint.reader import BatchOffsets
from spark_app.cli import main_parser, settings_from_args
from spark_app.lines.known_bug_table import TIMER_NEVER_FIRED, TIMERS_FIRED, judge
from spark_app.lines.output_line import OutputRow, format_event_line, format_lines
from spark_app.lines.state_events import IDLE_TIMER, Event, describe
from spark_app.offsets import TopicPartition
from spark_app.query.counter_tws import idle_delay_ms, time_mode
from spark_app.settings import SparkAppSettings

NOW = datetime(2026, 11, 26, 16, 0, 0)
T0 = 1_780_000_000_000  # batch 0's time; one batch a second after it


def batch(n: int, end: int, committed: bool = True) -> BatchOffsets:
    return BatchOffsets(
        n,
        ({TopicPartition("Experience", 0): end},),
        batch_timestamp_ms=T0 + 1000 * n,
        committed_at_ms=T0 + 1000 * n + 500 if committed else None,
    )


# Batch 0 reads the backlog; 1, 2 and 4 read a message each, 3 none; 5 is the last committed.
BATCHES = [batch(0, 40), batch(1, 41), batch(2, 42), batch(3, 42), batch(4, 43), batch(5, 43)]


def fired(due_ms: int, batch_ms: int, idle_ms: int = 0) -> str:
    event = Event(IDLE_TIMER, 1, {"idle_ms": idle_ms, "due_ms": due_ms, "batch_ms": batch_ms})
    return format_event_line(IDLE_TIMER, 1, describe(event), NOW).rstrip("\n")


def test_batches_with_messages_after_the_first_and_before_the_last_arm_the_timers() -> None:
    armed = armed_timers(BATCHES, idle_ms=0)
    assert [(b.batch_id, due, previous) for b, due, previous in armed] == [
        (1, T0 + 1000, T0),
        (2, T0 + 2000, T0 + 1000),
        (4, T0 + 4000, T0 + 3000),
    ]
    # A timer a minute early: due long before the previous batch's time.
    assert all(due <= previous for _, due, previous in armed_timers(BATCHES, -60_000))
    # Batch 5 read nothing; with a message it still needs a committed batch after it.
    assert [b.batch_id for b, _, _ in armed_timers(BATCHES[:5] + [batch(5, 44)], 0)] == [1, 2, 4]
    assert armed_timers(BATCHES[:2] + [batch(2, 42, committed=False)], 0) == []


def test_each_timer_is_found_by_its_due_time_in_the_batch_it_fired_in() -> None:
    lines = [
        fired(T0 + 1000, T0 + 1000),
        fired(T0 + 2000, T0 + 3000),
        format_lines([OutputRow("Experience", "43", "43", 43)], NOW).rstrip("\n"),
        fired(T0 + 4000, T0 + 4000),
    ]
    found = firings(BATCHES, events_in_lines(lines), idle_ms=0)
    assert [(f.batch_id, f.fired_in, f.events, f.in_time) for f in found] == [
        (1, 1, 1, True),
        (2, 3, 1, True),
        (4, 4, 1, True),
    ]
    assert phase_outcome(found) == TIMERS_FIRED


def test_a_timer_that_never_fired_is_the_bug() -> None:
    # The bound's case: the timer of batch 2, due a minute early, never scanned.
    lines = [fired(T0 + 1000 - 60_000, T0 + 1000, -60_000), fired(T0 + 4000 - 60_000, T0 + 4000)]
    found = firings(BATCHES, events_in_lines(lines), idle_ms=-60_000)
    assert [f.events for f in found] == [1, 0, 1]
    assert found[1].words().endswith("never fired") and found[1].at_or_before_previous
    assert phase_outcome(found) == TIMER_NEVER_FIRED == BUG.when_present


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        # Two batches after the one that armed it: late, a behaviour nobody recorded.
        (
            [fired(T0 + 1000, T0 + 3000), fired(T0 + 2000, T0 + 2000), fired(T0 + 4000, T0 + 4000)],
            "fired in batch 3",
        ),
        # Twice for one due time.
        (
            [
                fired(T0 + 1000, T0 + 1000),
                fired(T0 + 1000, T0 + 2000),
                fired(T0 + 2000, T0 + 2000),
                fired(T0 + 4000, T0 + 4000),
            ],
            "(2 events)",
        ),
    ],
)
def test_a_timer_fired_late_or_twice_is_neither_the_bug_nor_the_fix(
    lines: list[str], words: str
) -> None:
    outcome = phase_outcome(firings(BATCHES, events_in_lines(lines), idle_ms=0))
    assert outcome.startswith("a timer fired late or twice") and words in outcome
    assert BUG.status_of(outcome) is None


def test_the_exhibits_outcome_is_the_bugs_if_any_phase_shows_it() -> None:
    assert outcome_of([TIMERS_FIRED, TIMERS_FIRED]) == TIMERS_FIRED
    assert outcome_of([TIMERS_FIRED, TIMER_NEVER_FIRED]) == TIMER_NEVER_FIRED
    assert outcome_of(["a timer fired late or twice: x", TIMERS_FIRED]).startswith("a timer fired")


def test_a_firing_in_words() -> None:
    firing = Firing(4, T0 + 3000 - 60_000, T0 + 3000, 1, 5)
    assert firing.at_or_before_previous and firing.in_time  # the next batch: in time
    assert not Firing(4, T0, T0 - 1, 1, 6).in_time  # two batches later: late
    assert not Firing(4, T0, T0 - 1, 1, 4).at_or_before_previous
    assert not Firing(4, T0, T0 - 1, 1, None).in_time  # fired in a batch not committed
    assert "-60000 ms from the previous batch's time), fired in batch 5" in firing.words()


@pytest.mark.parametrize(
    ("version", "observed", "held"),
    [
        ("4.0.0", TIMERS_FIRED, True),  # before SPARK-56400: no bound
        ("4.1.1", TIMERS_FIRED, True),
        ("4.2.0", TIMERS_FIRED, True),  # SPARK-56566's code: the bound's default, none
        ("4.3.0", TIMERS_FIRED, True),
        ("4.2.0", TIMER_NEVER_FIRED, False),  # the bound back: the guard fails
        ("4.0.0", TIMER_NEVER_FIRED, False),
        ("4.4.0", TIMERS_FIRED, False),  # a line never run: record it first
    ],
)
def test_the_outcome_is_held_against_its_line(version: str, observed: str, held: bool) -> None:
    assert judge(BUG, version, observed).held is held


def test_the_phases_put_a_timer_at_the_batchs_time_and_a_minute_before_it() -> None:
    assert [p.idle_ms for p in PHASES] == [0, -60_000] and ARMED >= 2
    for phase in PHASES:
        settings = SparkAppSettings(**TWS, idle_timer_sec=phase.idle_sec)
        assert settings_from_args(main_parser().parse_args(settings.to_argv())) == settings
        assert time_mode(None, phase.idle_sec) == "ProcessingTime"


# --- the app's option ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "ms"),
    [
        ("0", 0),
        ("-0", 0),
        ("-60", -60_000),
        ("-0.0004", 0),
        ("6.5", 6500),
        ("0.001", 1),
        ("0.0004", 1),
    ],
)  # positive: at least 1 ms, as before
def test_the_idle_timer_may_be_due_at_or_before_its_batchs_time(given: str, ms: int) -> None:
    args = main_parser().parse_args(
        ["--counter", "transform-with-state", "--state-store", "rocksdb", "--idle-timer-sec", given]
    )
    assert idle_delay_ms(settings_from_args(args).idle_timer_sec) == ms
    assert idle_delay_ms(None) is None


@pytest.mark.parametrize("given", ["nan", "inf", "-inf", "soon"])
def test_the_idle_timer_refuses_what_is_no_finite_number(
    given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main_parser().parse_args(["--idle-timer-sec", given])
    assert exited.value.code == 2 and "--idle-timer-sec" in capsys.readouterr().err


def test_a_timer_due_at_or_before_its_batch_says_so_in_its_line() -> None:
    at = describe(Event(IDLE_TIMER, 3, {"idle_ms": 0, "due_ms": 7, "batch_ms": 9}))
    before = describe(Event(IDLE_TIMER, 3, {"idle_ms": -60_000, "due_ms": 7, "batch_ms": 9}))
    after = describe(Event(IDLE_TIMER, 3, {"idle_ms": 6000, "due_ms": 7, "batch_ms": 9}))
    assert at.startswith("the timer due at its batch's own time (7) fired in the batch of 9")
    assert before.startswith("the timer due 60 s before its batch's own time (7)")
    assert after.startswith("no message for 6 s: the timer due at 7")
