"""The group coordinator's protocol, driven directly on an asyncio loop (no sockets)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from kafka_app.broker.errors import ErrorCode
from kafka_app.broker.groups.coordinator import GroupCoordinator, JoinRequest, JoinResult
from kafka_app.broker.groups.offsets import CommittedOffsets

_DEADLINE_SEC = 5


def _join(member_id: str = "", session_ms: int = 10_000, require_id: bool = True) -> JoinRequest:
    return JoinRequest(
        group_id="g",
        member_id=member_id,
        client_id="c",
        session_timeout_ms=session_ms,
        rebalance_timeout_ms=5_000,
        protocol_type="consumer",
        protocols=[("range", b"meta-" + member_id.encode())],
        require_known_member_id=require_id,
    )


async def _new_member(coordinator: GroupCoordinator, session_ms: int = 10_000) -> str:
    first = await coordinator.join(_join(session_ms=session_ms))
    assert first.error_code == ErrorCode.MEMBER_ID_REQUIRED and first.member_id
    return first.member_id


async def _stable_member(coordinator: GroupCoordinator, assignment: bytes = b"p0") -> str:
    """A first member that joined and got `assignment`: the group is Stable at generation 1."""
    member = await _new_member(coordinator)
    await coordinator.join(_join(member))
    await coordinator.sync("g", 1, member, {member: assignment})
    return member


async def _second_joins(
    coordinator: GroupCoordinator, first: str
) -> tuple[str, asyncio.Task[JoinResult]]:
    """A second member joins; returns it and its pending join once `first` heard of the rebalance."""
    second = await _new_member(coordinator)
    joining = asyncio.create_task(coordinator.join(_join(second)))
    await _wait_for(
        lambda: coordinator.heartbeat("g", 1, first) == ErrorCode.REBALANCE_IN_PROGRESS,
        "the first member to hear of the rebalance",
    )
    return second, joining


async def _wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + _DEADLINE_SEC
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def _run(tmp_path: Path, scenario, initial_delay_ms: int = 0) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        offsets = CommittedOffsets(tmp_path / "offsets.jsonl")
        coordinator = GroupCoordinator(offsets, initial_delay_ms)
        try:
            await asyncio.wait_for(scenario(coordinator), 20)
        finally:
            coordinator.close()
            offsets.close()

    asyncio.run(main())


def test_member_id_required_then_a_single_member_leads(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        member = await _new_member(coordinator)
        joined = await coordinator.join(_join(member))
        assert (joined.error_code, joined.generation_id, joined.leader) == (0, 1, member)
        assert [m for m, _ in joined.members] == [member]
        synced = await coordinator.sync("g", 1, member, {member: b"all of it"})
        assert (synced.error_code, synced.assignment) == (0, b"all of it")
        assert coordinator.heartbeat("g", 1, member) == ErrorCode.NONE

    _run(tmp_path, scenario)


def test_unknown_member_and_old_clients(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        assert (await coordinator.join(_join("nobody"))).error_code == ErrorCode.UNKNOWN_MEMBER_ID
        old = await coordinator.join(_join(require_id=False))  # JoinGroup v0-v3: one round trip
        assert old.error_code == 0 and old.member_id

    _run(tmp_path, scenario)


def test_a_joining_member_makes_the_other_rejoin_and_share(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        first = await _stable_member(coordinator, b"p0,p1")
        second, second_join = await _second_joins(coordinator, first)
        assert not second_join.done(), "the join completed before the old member rejoined"
        first_join: JoinResult = await coordinator.join(_join(first))
        second_result = await second_join
        assert first_join.generation_id == second_result.generation_id == 2
        assert first_join.leader == second_result.leader == first  # the leader stays
        assert sorted(m for m, _ in first_join.members) == sorted([first, second])
        assert second_result.members == []

        follower_sync = asyncio.create_task(coordinator.sync("g", 2, second, {}))
        leader_sync = await coordinator.sync("g", 2, first, {first: b"p0", second: b"p1"})
        assert leader_sync.assignment == b"p0"
        assert (await follower_sync).assignment == b"p1"
        assert coordinator.heartbeat("g", 1, first) == ErrorCode.ILLEGAL_GENERATION

    _run(tmp_path, scenario)


def test_leave_and_session_timeout_remove_members(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        stays = await _new_member(coordinator)
        goes = await _new_member(coordinator, session_ms=300)
        both = await asyncio.gather(
            coordinator.join(_join(stays)), coordinator.join(_join(goes, session_ms=300))
        )
        generation = both[0].generation_id
        leader = both[0].leader
        await asyncio.gather(
            coordinator.sync("g", generation, leader, {stays: b"a", goes: b"b"}),
            coordinator.sync("g", generation, goes if leader == stays else stays, {}),
        )
        # `goes` never heartbeats: after 300 ms its session expires and the group rebalances.
        await _wait_for(
            lambda: (
                coordinator.heartbeat("g", generation, stays) == ErrorCode.REBALANCE_IN_PROGRESS
            ),
            "the expired member to be removed",
        )
        assert coordinator.heartbeat("g", generation, goes) == ErrorCode.UNKNOWN_MEMBER_ID
        alone = await coordinator.join(_join(stays))
        assert (alone.generation_id, alone.leader) == (generation + 1, stays)
        await coordinator.sync("g", alone.generation_id, stays, {stays: b"ab"})
        assert coordinator.leave("g", stays) == ErrorCode.NONE
        assert coordinator.leave("g", stays) == ErrorCode.UNKNOWN_MEMBER_ID

    _run(tmp_path, scenario)


def test_commits_need_a_current_member_unless_standalone(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        member = await _new_member(coordinator)
        await coordinator.join(_join(member))
        # Joined but not yet synced: the assignment is not out, so nobody may commit.
        assert coordinator.commit_error("g", 1, member) == ErrorCode.REBALANCE_IN_PROGRESS
        await coordinator.sync("g", 1, member, {member: b"p0"})
        assert coordinator.commit_error("g", 1, member) == ErrorCode.NONE
        assert coordinator.commit_error("g", 0, member) == ErrorCode.ILLEGAL_GENERATION
        assert coordinator.commit_error("g", 1, "stranger") == ErrorCode.UNKNOWN_MEMBER_ID
        assert coordinator.commit_error("other", -1, "") == ErrorCode.NONE

    _run(tmp_path, scenario)


def test_current_generation_commits_while_a_rebalance_is_prepared(tmp_path: Path) -> None:
    """Kafka's ClassicGroup.validateOffsetCommit: PreparingRebalance accepts the current
    generation (commit in on_revoke), CompletingRebalance does not, -1 needs an empty group."""

    async def scenario(coordinator: GroupCoordinator) -> None:
        first = await _stable_member(coordinator)
        _, second_join = await _second_joins(coordinator, first)
        assert coordinator.commit_error("g", 1, first) == ErrorCode.NONE
        assert coordinator.commit_error("g", -1, "") == ErrorCode.UNKNOWN_MEMBER_ID
        assert coordinator.commit_error("g", 0, first) == ErrorCode.ILLEGAL_GENERATION
        await coordinator.join(_join(first))
        await second_join
        assert coordinator.commit_error("g", 2, first) == ErrorCode.REBALANCE_IN_PROGRESS
        assert coordinator.commit_error("g", 1, first) == ErrorCode.ILLEGAL_GENERATION
        assert coordinator.commit_error("absent", 3, "m", version=9) == ErrorCode.GROUP_ID_NOT_FOUND
        assert coordinator.commit_error("absent", 3, "m", version=8) == ErrorCode.ILLEGAL_GENERATION

    _run(tmp_path, scenario)


def test_a_member_without_a_common_assignor_is_refused(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        member = await _new_member(coordinator)
        await coordinator.join(_join(member))
        stranger = await _new_member(coordinator)
        odd = JoinRequest(
            group_id="g",
            member_id=stranger,
            client_id="c",
            session_timeout_ms=10_000,
            rebalance_timeout_ms=5_000,
            protocol_type="consumer",
            protocols=[("sticky-only", b"")],
            require_known_member_id=True,
        )
        assert (await coordinator.join(odd)).error_code == ErrorCode.INCONSISTENT_GROUP_PROTOCOL

    _run(tmp_path, scenario)


def test_a_new_group_waits_the_initial_delay_and_extends_it_for_newcomers(tmp_path: Path) -> None:
    """Kafka's group.initial.rebalance.delay.ms: members arriving during the delay share the
    first generation instead of forcing one rebalance each."""

    async def scenario(coordinator: GroupCoordinator) -> None:
        started = time.monotonic()
        first = await _new_member(coordinator)
        first_join = asyncio.create_task(coordinator.join(_join(first)))
        await asyncio.sleep(0.2)  # the second consumer starts a moment later
        second = await _new_member(coordinator)
        second_join = asyncio.create_task(coordinator.join(_join(second)))
        results = await asyncio.gather(first_join, second_join)
        waited = time.monotonic() - started
        assert [r.generation_id for r in results] == [1, 1]
        assert sorted(m for m, _ in results[0].members) == sorted([first, second])
        # One delay of 0.4 s, extended once for the newcomer (both under the 5 s rebalance timeout).
        assert 0.75 <= waited < 2.0, waited

    _run(tmp_path, scenario, initial_delay_ms=400)


def test_the_initial_delay_is_only_for_an_empty_group(tmp_path: Path) -> None:
    async def scenario(coordinator: GroupCoordinator) -> None:
        first = await _stable_member(coordinator)
        started = time.monotonic()
        _, second_join = await _second_joins(coordinator, first)
        await asyncio.gather(coordinator.join(_join(first)), second_join)
        assert time.monotonic() - started < 0.6  # done when everyone rejoined, no delay

    _run(tmp_path, scenario, initial_delay_ms=1_000)


def test_the_last_member_leaving_empties_the_group_through_a_rebalance(tmp_path: Path) -> None:
    """Stable -> PreparingRebalance -> Empty, as Kafka moves it (Stable -> Empty is refused);
    the empty group then takes standalone commits and new members again."""

    async def scenario(coordinator: GroupCoordinator) -> None:
        member = await _stable_member(coordinator)
        assert coordinator.commit_error("g", -1, "") == ErrorCode.UNKNOWN_MEMBER_ID  # in use
        assert coordinator.leave("g", member) == ErrorCode.NONE
        assert coordinator.commit_error("g", -1, "") == ErrorCode.NONE
        again = await _new_member(coordinator)
        assert (await coordinator.join(_join(again))).leader == again

    _run(tmp_path, scenario)
