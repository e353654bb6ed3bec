"""The seeded fault library (scenarios/engine/faults/schedule.py): one seed, one schedule."""

from __future__ import annotations

import random

import pytest

from scenarios.engine.faults.schedule import (
    FAULT_KINDS,
    GAP_SEC,
    HOLD_SEC,
    KILL_MOMENTS,
    draw_schedule,
    kill_moments,
    parse_kinds,
)
from scenarios.errors import ScenarioError


def test_the_same_seed_draws_the_same_schedule() -> None:
    first = draw_schedule(7, 2, tuple(FAULT_KINDS), fast=True)
    again = draw_schedule(7, 2, tuple(FAULT_KINDS), fast=True)
    assert first == again
    assert first.lines() == again.lines()


def test_another_seed_draws_another_schedule() -> None:
    kinds = tuple(FAULT_KINDS)
    assert draw_schedule(7, 2, kinds).faults != draw_schedule(8, 2, kinds).faults


def test_the_order_kinds_are_named_in_does_not_change_the_draw() -> None:
    assert draw_schedule(3, 5, ("pause", "kill")) == draw_schedule(3, 5, ("kill", "pause"))


def test_faults_are_of_the_kinds_asked_for_only() -> None:
    schedule = draw_schedule(11, 10, ("kill", "disk"))
    assert {f.kind for f in schedule.faults} == {"kill", "disk"}
    assert schedule.kinds == ("kill", "disk")


def test_faults_come_in_time_within_the_minutes_at_the_drawn_gaps() -> None:
    schedule = draw_schedule(5, 3, tuple(FAULT_KINDS), fast=True)
    times = [f.at_sec for f in schedule.faults]
    assert times == sorted(times) and times[-1] < 3 * 60
    low, high = GAP_SEC[True]
    gaps = [b - a for a, b in zip([0.0, *times], times)]
    assert all(low - 0.1 <= g <= high + 0.1 for g in gaps)
    assert [f.number for f in schedule.faults] == list(range(1, len(times) + 1))


def test_each_fault_holds_within_its_kinds_range_and_hits_a_target_of_its_kind() -> None:
    for fault in draw_schedule(9, 30, tuple(FAULT_KINDS)).faults:
        low, high = HOLD_SEC[fault.kind]
        assert low <= fault.hold_sec <= high, fault
        if fault.kind == "kill":
            assert fault.target in KILL_MOMENTS
        if fault.kind == "broker":
            assert fault.target in ("the leader", "a follower")


def test_the_schedule_prints_a_head_line_and_a_line_per_fault() -> None:
    schedule = draw_schedule(7, 1, ("kill", "pause"), fast=True)
    lines = schedule.lines()
    assert lines[0].startswith(f"seed 7: {len(schedule.faults)} fault(s) in 1 min of kill, pause")
    assert len(lines) == len(schedule.faults) + 1
    pause = next(f for f in schedule.faults if f.kind == "pause")
    assert f"healed after {pause.hold_sec:.1f} s" in pause.line()


def test_kinds_are_parsed_in_the_draws_order_and_an_unknown_one_is_named() -> None:
    assert parse_kinds("pause, kill") == ("kill", "pause")
    with pytest.raises(ScenarioError, match="clock-skew"):
        parse_kinds("kill,clock-skew")
    with pytest.raises(ScenarioError, match="none named"):
        parse_kinds(" , ")


def test_chaos_kill_moments_take_each_moment_in_turn_seeded() -> None:
    moments = kill_moments(7, random.Random(1))
    assert sorted(moments[:3]) == sorted(KILL_MOMENTS)
    assert sorted(moments[3:6]) == sorted(KILL_MOMENTS)
    assert moments == kill_moments(7, random.Random(1))
    assert len(kill_moments(2, random.Random(1))) == 2
