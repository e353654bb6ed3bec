"""A classic group's states: the moves Kafka allows, and a refused one failing loudly."""

from __future__ import annotations

import pytest

from kafka_app.broker.errors import IllegalGroupTransition
from kafka_app.broker.groups.state import GroupState, move

S = GroupState


def test_a_new_member_starts_the_first_rebalance() -> None:
    assert move("g", S.EMPTY, S.PREPARING_REBALANCE) is S.PREPARING_REBALANCE
    assert move("g", S.COMPLETING_REBALANCE, S.STABLE) is S.STABLE


def test_an_empty_group_cannot_become_stable_without_a_rebalance() -> None:
    with pytest.raises(
        IllegalGroupTransition,
        match="group g cannot move from Empty to Stable .only from CompletingRebalance",
    ):
        move("g", S.EMPTY, S.STABLE)


def test_the_table_is_kafkas() -> None:
    """ClassicGroupState.validPreviousStates in apache/kafka's group-coordinator."""
    previous = {state.value: sorted(s.value for s in state.valid_previous) for state in S}
    assert previous == {
        "Empty": ["PreparingRebalance"],
        "PreparingRebalance": ["CompletingRebalance", "Empty", "Stable"],
        "CompletingRebalance": ["PreparingRebalance"],
        "Stable": ["CompletingRebalance"],
        "Dead": ["CompletingRebalance", "Dead", "Empty", "PreparingRebalance", "Stable"],
    }
