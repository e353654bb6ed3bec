"""The states of a classic consumer group, and which state each may be entered from.

The table is Kafka's own (group-coordinator's ClassicGroupState, `validPreviousStates`): a
group is Empty until a member joins, PreparingRebalance while members (re)join,
CompletingRebalance while the leader computes the assignment, Stable once it is sent; Dead is
final. A move the table does not allow is a coordinator bug, raised at once rather than
answered to clients from a group in a state Kafka could never be in.

Usage:
    group.state = move(group.group_id, group.state, GroupState.PREPARING_REBALANCE)
"""

from __future__ import annotations

from enum import Enum

from kafka_app.broker.errors import IllegalGroupTransition

__all__ = ["GroupState", "move"]


class GroupState(Enum):
    """A classic group's state, valued as Kafka names it (DescribeGroups shows these names)."""

    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    @property
    def valid_previous(self) -> frozenset[GroupState]:
        """The states a group may be in to enter this one."""
        return _VALID_PREVIOUS[self]


_S = GroupState
_VALID_PREVIOUS: dict[GroupState, frozenset[GroupState]] = {
    _S.EMPTY: frozenset({_S.PREPARING_REBALANCE}),
    _S.PREPARING_REBALANCE: frozenset({_S.STABLE, _S.COMPLETING_REBALANCE, _S.EMPTY}),
    _S.COMPLETING_REBALANCE: frozenset({_S.PREPARING_REBALANCE}),
    _S.STABLE: frozenset({_S.COMPLETING_REBALANCE}),
    _S.DEAD: frozenset(
        {_S.STABLE, _S.PREPARING_REBALANCE, _S.COMPLETING_REBALANCE, _S.EMPTY, _S.DEAD}
    ),
}


def move(group_id: str, current: GroupState, target: GroupState) -> GroupState:
    """`target`, if Kafka allows entering it from `current`; else IllegalGroupTransition."""
    if current not in target.valid_previous:
        allowed = ", ".join(sorted(s.value for s in target.valid_previous))
        raise IllegalGroupTransition(
            f"group {group_id} cannot move from {current.value} to "
            f"{target.value} (only from {allowed})"
        )
    return target
