"""The group coordinator: consumer groups join, get their assignment, heartbeat and leave.

Kafka's classic group protocol on one node. A group moves Empty -> PreparingRebalance (members
(re)join) -> CompletingRebalance (the leader computes the assignment and sends it with SyncGroup)
-> Stable, every move checked against Kafka's table of allowed ones (state.py). A member joining
or leaving, or missing heartbeats for its session timeout, starts a new rebalance; the others
learn of it from Heartbeat's REBALANCE_IN_PROGRESS and rejoin. Committed offsets are not kept
here but in storage's CommittedOffsets, so they survive restarts. Error codes are the broker's
one table, errors.ErrorCode.
Usage: `result = await coordinator.join(JoinRequest(...))`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field

from kafka_app.broker.errors import ErrorCode
from kafka_app.broker.groups.offsets import CommittedOffsets
from kafka_app.broker.groups.state import GroupState, move

__all__ = ["GroupCoordinator", "JoinRequest", "JoinResult", "SyncResult"]

log = logging.getLogger(__name__)

EMPTY, PREPARING, COMPLETING, STABLE = (
    GroupState.EMPTY,
    GroupState.PREPARING_REBALANCE,
    GroupState.COMPLETING_REBALANCE,
    GroupState.STABLE,
)
# OffsetCommit v9+ answers a commit to an unknown group with GROUP_ID_NOT_FOUND, not ILLEGAL_GENERATION.
_GROUP_ID_NOT_FOUND_SINCE = 9
# How often expired sessions are looked for; well below any client's session timeout.
_REAPER_INTERVAL_SEC = 0.5


@dataclass(frozen=True)
class JoinRequest:
    group_id: str
    member_id: str
    client_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    # JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED with its id, then rejoins with it.
    require_known_member_id: bool


@dataclass(frozen=True)
class JoinResult:
    error_code: int
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    members: list[tuple[str, bytes]] = field(default_factory=list)


@dataclass(frozen=True)
class SyncResult:
    error_code: int
    assignment: bytes = b""
    protocol_type: str | None = None
    protocol_name: str | None = None


@dataclass
class _Member:
    member_id: str
    client_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocols: list[tuple[str, bytes]]
    last_seen: float = field(default_factory=time.monotonic)
    joining: asyncio.Future[JoinResult] | None = None
    syncing: asyncio.Future[SyncResult] | None = None
    assignment: bytes = b""

    def expired(self, now: float) -> bool:
        # A member parked in JoinGroup or SyncGroup is alive: it is waiting on us, not silent.
        waiting = self.joining is not None or self.syncing is not None
        return not waiting and now - self.last_seen > self.session_timeout_ms / 1000


@dataclass
class _Group:
    group_id: str
    state: GroupState = EMPTY
    generation: int = 0
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    members: dict[str, _Member] = field(default_factory=dict)
    # Ids handed out with MEMBER_ID_REQUIRED, until when they may come back (monotonic seconds).
    pending_ids: dict[str, float] = field(default_factory=dict)
    rejoined: asyncio.Event = field(default_factory=asyncio.Event)
    rebalance: asyncio.Task[None] | None = None
    # Kafka's newMemberAdded: a member joined during the initial delay, which then extends.
    new_member_added: bool = False
    initial_rebalance: bool = False

    def enter(self, state: GroupState) -> None:
        """Move to `state`; IllegalGroupTransition if Kafka never moves there from here."""
        self.state = move(self.group_id, self.state, state)


class GroupCoordinator:
    """Every group of this broker; runs on the broker's asyncio loop."""

    def __init__(self, offsets: CommittedOffsets, initial_rebalance_delay_ms: int = 3_000) -> None:
        self.offsets = offsets
        # Kafka's group.initial.rebalance.delay.ms: a new group waits this long (and again,
        # up to its rebalance timeout, while members keep arriving) before its first rebalance.
        self.initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self._groups: dict[str, _Group] = {}
        self._reaper: asyncio.Task[None] | None = None

    # --- JoinGroup / SyncGroup -------------------------------------------------------------

    async def join(self, request: JoinRequest) -> JoinResult:
        self._start_reaper()
        group = self._groups.setdefault(request.group_id, _Group(request.group_id))
        error = self._join_error(group, request)
        if error is not None:
            return JoinResult(error, request.member_id)
        member_id = request.member_id
        if not member_id:
            member_id = f"{request.client_id or 'member'}-{uuid.uuid4()}"
            if request.require_known_member_id:
                group.pending_ids[member_id] = time.monotonic() + request.session_timeout_ms / 1000
                return JoinResult(ErrorCode.MEMBER_ID_REQUIRED, member_id)
        group.pending_ids.pop(member_id, None)
        member = group.members.get(member_id)
        if member is None:
            member = _Member(
                member_id,
                request.client_id,
                request.session_timeout_ms,
                request.rebalance_timeout_ms,
                request.protocols,
            )
            group.members[member_id] = member
            group.new_member_added = group.new_member_added or group.initial_rebalance
            log.info("Member %s joins group %s", member_id, group.group_id)
        member.protocols, member.last_seen = request.protocols, time.monotonic()
        group.protocol_type = request.protocol_type
        if member.joining is not None and not member.joining.done():
            member.joining.set_result(JoinResult(ErrorCode.REBALANCE_IN_PROGRESS, member_id))
        waiting = member.joining = asyncio.get_running_loop().create_future()
        self._prepare_rebalance(group, f"member {member_id} joined")
        group.rejoined.set()
        return await waiting

    def _join_error(self, group: _Group, request: JoinRequest) -> int | None:
        if not request.protocols:
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        if group.members and group.protocol_type not in (None, request.protocol_type):
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        others = [m for m in group.members.values() if m.member_id != request.member_id]
        offered = {name for name, _ in request.protocols}
        # Everyone must share at least one assignor, or no leader could assign for all of them.
        if others and not offered & set.intersection(
            *({n for n, _ in m.protocols} for m in others)
        ):
            return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
        known = request.member_id in group.members or request.member_id in group.pending_ids
        if request.member_id and not known:
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    async def sync(
        self, group_id: str, generation: int, member_id: str, assignments: dict[str, bytes]
    ) -> SyncResult:
        group = self._groups.get(group_id)
        member = group.members.get(member_id) if group else None
        if group is None or member is None:
            return SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
        if generation != group.generation:
            return SyncResult(ErrorCode.ILLEGAL_GENERATION)
        if group.state == PREPARING:
            return SyncResult(ErrorCode.REBALANCE_IN_PROGRESS)
        member.last_seen = time.monotonic()
        if group.state == STABLE:
            return self._sync_result(group, member)
        waiting = member.syncing = asyncio.get_running_loop().create_future()
        if member_id == group.leader:
            self._complete_sync(group, assignments)
        return await waiting

    def _complete_sync(self, group: _Group, assignments: dict[str, bytes]) -> None:
        group.enter(STABLE)
        log.info(
            "Group %s is stable at generation %d with %d member(s)",
            group.group_id,
            group.generation,
            len(group.members),
        )
        for member in group.members.values():
            member.assignment = assignments.get(member.member_id, b"")
            if member.syncing is not None and not member.syncing.done():
                member.syncing.set_result(self._sync_result(group, member))
            member.syncing = None

    @staticmethod
    def _sync_result(group: _Group, member: _Member) -> SyncResult:
        return SyncResult(
            ErrorCode.NONE, member.assignment, group.protocol_type, group.protocol_name
        )

    # --- Heartbeat / LeaveGroup / offset commits --------------------------------------------

    def heartbeat(self, group_id: str, generation: int, member_id: str) -> int:
        error = self.member_error(group_id, generation, member_id)
        if error in (ErrorCode.NONE, ErrorCode.REBALANCE_IN_PROGRESS):
            self._groups[group_id].members[member_id].last_seen = time.monotonic()
        return error

    def member_error(self, group_id: str, generation: int, member_id: str) -> int:
        """Whether this member of this generation may heartbeat or commit right now."""
        group = self._groups.get(group_id)
        if group is None or member_id not in group.members:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.state == PREPARING:
            return ErrorCode.REBALANCE_IN_PROGRESS
        if generation != group.generation:
            return ErrorCode.ILLEGAL_GENERATION
        return ErrorCode.NONE

    def leave(self, group_id: str, member_id: str) -> int:
        group = self._groups.get(group_id)
        if group is None or member_id not in group.members:
            return ErrorCode.UNKNOWN_MEMBER_ID
        self._remove(group, member_id, "left")
        return ErrorCode.NONE

    def commit_error(
        self,
        group_id: str,
        generation: int,
        member_id: str,
        version: int = _GROUP_ID_NOT_FOUND_SINCE,
    ) -> int:
        """OffsetCommit's check, Kafka's ClassicGroup.validateOffsetCommit.

        Members of the current generation may commit while the group prepares a rebalance (so a
        consumer commits in on_revoke and on close); only between JoinGroup and the leader's
        SyncGroup is it REBALANCE_IN_PROGRESS. Commits without a generation (-1: admin tools,
        consumers that assign partitions themselves) need the group to be empty or absent.
        """
        group = self._groups.get(group_id)
        if group is None:
            if generation < 0:
                return ErrorCode.NONE
            return (
                ErrorCode.GROUP_ID_NOT_FOUND
                if version >= _GROUP_ID_NOT_FOUND_SINCE
                else ErrorCode.ILLEGAL_GENERATION
            )
        if generation < 0 and group.state == EMPTY:
            return ErrorCode.NONE
        if generation >= 0 or member_id:
            if member_id not in group.members:
                return ErrorCode.UNKNOWN_MEMBER_ID
            if generation != group.generation:
                return ErrorCode.ILLEGAL_GENERATION
        elif group.state != EMPTY:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if group.state == COMPLETING:
            return ErrorCode.REBALANCE_IN_PROGRESS
        return ErrorCode.NONE

    def close(self) -> list[asyncio.Task[None]]:
        """Stop the session reaper and every pending rebalance; idempotent. Returns the
        cancelled tasks, for a caller on the loop to await (see `stop`)."""
        tasks = [
            t
            for t in [self._reaper, *(g.rebalance for g in self._groups.values())]
            if t is not None
        ]
        for task in tasks:
            task.cancel()
        self._reaper = None
        return tasks

    async def stop(self) -> None:
        """`close`, then wait until the cancelled tasks have ended, so none is left pending
        when the loop closes (asyncio reports those as "Task was destroyed but it is pending")."""
        await asyncio.gather(*self.close(), return_exceptions=True)

    # --- rebalancing ------------------------------------------------------------------------

    def _prepare_rebalance(self, group: _Group, reason: str) -> None:
        if group.state == COMPLETING:
            # The leader's assignment is for the old member set; everyone must rejoin.
            for member in group.members.values():
                if member.syncing is not None and not member.syncing.done():
                    member.syncing.set_result(SyncResult(ErrorCode.REBALANCE_IN_PROGRESS))
                member.syncing = None
        if group.state != PREPARING:
            log.info("Group %s rebalances: %s", group.group_id, reason)
            initial = group.state == EMPTY and self.initial_rebalance_delay_ms > 0
            group.enter(PREPARING)
            group.initial_rebalance, group.new_member_added = initial, False
            waiting = self._delay_initial_join(group) if initial else self._await_rejoins(group)
            group.rebalance = asyncio.get_running_loop().create_task(waiting)

    async def _delay_initial_join(self, group: _Group) -> None:
        """Kafka's tryCompleteInitialRebalanceElseSchedule: a new group's first join completes
        after the delay, extended by one delay each time members kept arriving, but never past
        the rebalance timeout; so consumers started together share the first assignment."""
        delay = self.initial_rebalance_delay_ms
        timeout = max((m.rebalance_timeout_ms for m in group.members.values()), default=0)
        remaining = max(timeout - delay, 0)
        while True:
            await asyncio.sleep(delay / 1000)  # a timer, as Kafka schedules one; not a poll
            if not (group.new_member_added and remaining):
                break
            group.new_member_added = False
            delay, remaining = (
                min(self.initial_rebalance_delay_ms, remaining),
                max(remaining - delay, 0),
            )
        group.initial_rebalance = False
        self._complete_join(group)

    async def _await_rejoins(self, group: _Group) -> None:
        timeout = max((m.rebalance_timeout_ms for m in group.members.values()), default=0) / 1000
        deadline = time.monotonic() + timeout
        while not all(m.joining is not None for m in group.members.values()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                for member in [m for m in group.members.values() if m.joining is None]:
                    self._drop(group, member.member_id, "did not rejoin in time")
                break
            group.rejoined.clear()
            try:
                await asyncio.wait_for(group.rejoined.wait(), remaining)
            except asyncio.TimeoutError:
                continue
        self._complete_join(group)

    def _complete_join(self, group: _Group) -> None:
        group.rebalance = None
        if not group.members:
            group.enter(EMPTY)
            group.leader = ""
            return
        group.generation += 1
        group.protocol_name = self._choose_protocol(group)
        if group.leader not in group.members:
            group.leader = next(iter(group.members))
        group.enter(COMPLETING)
        everyone = [
            (m.member_id, dict(m.protocols)[group.protocol_name]) for m in group.members.values()
        ]
        for member in group.members.values():
            result = JoinResult(
                ErrorCode.NONE,
                member.member_id,
                group.generation,
                group.protocol_type,
                group.protocol_name,
                group.leader,
                everyone if member.member_id == group.leader else [],
            )
            if member.joining is not None and not member.joining.done():
                member.joining.set_result(result)
            member.joining, member.last_seen = None, time.monotonic()

    @staticmethod
    def _choose_protocol(group: _Group) -> str:
        members = list(group.members.values())
        common = set.intersection(*({name for name, _ in m.protocols} for m in members))
        # The leader's preference order decides among the protocols everyone supports.
        leader = group.members.get(group.leader, members[0])
        return next(
            (name for name, _ in leader.protocols if name in common), leader.protocols[0][0]
        )

    def _remove(self, group: _Group, member_id: str, why: str) -> None:
        self._drop(group, member_id, why)
        if group.members:
            self._prepare_rebalance(group, f"member {member_id} {why}")
        elif group.state != PREPARING:
            # As Kafka: the last member's leaving prepares a rebalance that completes at once,
            # with nobody, so the group passes through PreparingRebalance to Empty.
            group.enter(PREPARING)
            group.enter(EMPTY)
            group.leader = ""
        group.rejoined.set()

    def _drop(self, group: _Group, member_id: str, why: str) -> None:
        member = group.members.pop(member_id)
        log.info("Member %s %s group %s", member_id, why, group.group_id)
        for pending in (member.joining, member.syncing):
            if pending is not None and not pending.done():
                pending.set_result(
                    JoinResult(ErrorCode.UNKNOWN_MEMBER_ID, member_id)
                    if pending is member.joining
                    else SyncResult(ErrorCode.UNKNOWN_MEMBER_ID)
                )

    def _start_reaper(self) -> None:
        if self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap_expired())

    async def _reap_expired(self) -> None:
        while True:
            # A schedule, not a synchronisation: sessions are checked a few times a second.
            await asyncio.sleep(_REAPER_INTERVAL_SEC)
            now = time.monotonic()
            for group in list(self._groups.values()):
                for member_id in [m for m, until in group.pending_ids.items() if until < now]:
                    del group.pending_ids[member_id]  # never came back with its id
                for member in [m for m in group.members.values() if m.expired(now)]:
                    self._remove(
                        group, member.member_id, "missed its session timeout, removed from"
                    )
