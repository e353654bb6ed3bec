"""The demo's state rules: console lines and exits in, what the panels show out."""

from __future__ import annotations

from scenarios.demo.state import (
    SparkPhase,
    initial_state,
    on_negative_key_requested,
    on_producer_exit,
    on_producer_line,
    on_spark_exit,
    on_spark_line,
    on_spark_signal,
    on_spark_started,
    with_event,
)


def test_producer_line_moves_earliest_and_latest() -> None:
    state = on_producer_line(initial_state(15), "Experience [ 89:109]: 109 -> 109")
    assert (state.producer.earliest, state.producer.latest, state.producer.last_value) == (
        89,
        109,
        109,
    )
    assert state.producer.up


def test_producer_negative_key_is_counted_when_it_is_sent() -> None:
    state = on_negative_key_requested(initial_state(15))
    state = on_producer_line(state, "Experience [0:4]: -5 -> 5")
    assert state.producer.negatives_requested == 1
    assert state.producer.negatives_seen == 1
    assert state.producer.last_negative_key == -5
    assert state.producer.last_value == 5


def test_producer_keeps_only_recent_lines_and_ignores_other_text_for_offsets() -> None:
    state = initial_state(15)
    for value in range(1, 21):
        state = on_producer_line(state, f"Experience [0:{value}]: {value} -> {value}")
    state = on_producer_line(state, "Press Enter to send a negative key")
    assert len(state.producer.lines) == 8
    assert state.producer.lines[-1] == "Press Enter to send a negative key"
    assert state.producer.latest == 20


def test_spark_batch_line_sets_batch_and_count() -> None:
    state = on_spark_started(initial_state(15), pid=42)
    state = on_spark_line(state, "batch 7: Experience-0 [10, 12) rows=2 count=12 took 80 ms")
    assert (state.spark.last_batch, state.spark.count) == (7, 12)
    assert state.spark.phase is SparkPhase.RUNNING and state.spark.pid == 42


def test_spark_exit_is_named_by_what_we_sent_or_its_code() -> None:
    up = on_spark_started(initial_state(15), pid=42)
    assert on_spark_exit(on_spark_signal(up, "SIGKILL"), -9).spark.phase is SparkPhase.KILLED
    assert on_spark_exit(on_spark_signal(up, "SIGTERM"), 0).spark.phase is SparkPhase.STOPPED
    assert (
        on_spark_exit(on_spark_signal(up, "SIGTERM"), -9).spark.phase is SparkPhase.STOP_TIMED_OUT
    )
    assert on_spark_exit(up, 255).spark.phase is SparkPhase.CRASHED
    assert on_spark_exit(up, 1).spark.phase is SparkPhase.FAILED
    assert on_spark_exit(up, 0).spark.phase is SparkPhase.EXITED


def test_sigterm_shows_stopping_until_the_exit() -> None:
    state = on_spark_signal(on_spark_started(initial_state(15), pid=42), "SIGTERM")
    assert state.spark.phase is SparkPhase.STOPPING and state.spark.phase.is_up


def test_restart_counts_starts_and_forgets_the_old_runs_figures() -> None:
    state = on_spark_started(initial_state(15), pid=1)
    state = on_spark_line(state, "batch 3: x rows=1 count=3 took 1 ms")
    state = on_spark_exit(on_spark_signal(state, "SIGKILL"), -9)
    state = on_spark_started(state, pid=2)
    assert state.spark.starts == 2
    assert state.spark.last_batch is None and state.spark.count is None
    assert state.spark.signal_sent is None


def test_producer_exit_and_events() -> None:
    state = on_producer_exit(on_producer_line(initial_state(15), "Experience [0:1]: 1 -> 1"), 1)
    assert not state.producer.up and state.producer.exit_code == 1
    for n in range(10):
        state = with_event(state, f"event {n}")
    assert state.events[-1] == "event 9" and len(state.events) == 6
