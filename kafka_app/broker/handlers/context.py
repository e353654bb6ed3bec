"""What every request handler can reach: settings, storage, committed offsets, the group
coordinator, and the signal that new records arrived (which wakes long-polling fetches).

All of it lives on the broker's one asyncio loop thread, so nothing here needs a lock.
Usage: `ctx = BrokerContext(settings, storage, offsets, groups); ctx.appends.notify()`.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_app.broker.handlers.fetch_memory import FetchLease, FetchMemory
from kafka_app.broker.settings import BrokerSettings

if TYPE_CHECKING:
    from kafka_app.broker.groups.coordinator import GroupCoordinator
    from kafka_app.broker.groups.offsets import CommittedOffsets
    from kafka_app.broker.storage.data_dir import Storage

__all__ = ["AppendSignal", "BrokerContext", "NODE_ID", "CLUSTER_ID", "each_name_once"]

# The one node of this single-node cluster; it leads every partition and coordinates every group.
NODE_ID = 0
CLUSTER_ID = "kafka-app-embedded"


def each_name_once(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(names given more than once, the others in request order): Kafka's controller answers a
    duplicated topic name once, with INVALID_REQUEST, before the rest (CreateTopics,
    DeleteTopics and CreatePartitions alike in its ControllerApis; measured for DeleteTopics on
    Kafka 4.1.2, where a name twice had been answered twice here)."""
    counts = Counter(names)
    return [n for n, c in counts.items() if c > 1], [n for n, c in counts.items() if c == 1]


class AppendSignal:
    """Wakes every waiting Fetch when any partition got new records.

    One event per "generation": notify() sets the current event and starts a new one, so a
    waiter that checked its partitions before the append cannot miss the wake-up.
    """

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait(self, timeout_sec: float) -> bool:
        """Wait for the next append, at most `timeout_sec`; True when one happened."""
        if timeout_sec <= 0:
            return False
        try:
            await asyncio.wait_for(self._event.wait(), timeout_sec)
        except asyncio.TimeoutError:
            return False
        return True


@dataclass
class BrokerContext:
    """Shared state of one running broker, handed to every handler."""

    settings: BrokerSettings
    storage: Storage
    offsets: CommittedOffsets
    groups: GroupCoordinator
    advertised_host: str = "127.0.0.1"
    advertised_port: int = 9092
    appends: AppendSignal = field(default_factory=AppendSignal)
    # Start from the clock so ids keep increasing across restarts without persisting a counter.
    producer_ids: itertools.count = field(
        default_factory=lambda: itertools.count(int(time.time() * 1000))
    )
    # Fetched records held by answers not yet written, broker-wide (fetch_memory.py) ...
    fetch_memory: FetchMemory = field(default_factory=FetchMemory)
    # ... and this connection's share: each Connection gets a copy of the context with its own.
    fetch_lease: FetchLease | None = None
