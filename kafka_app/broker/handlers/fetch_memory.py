"""A broker-wide cap on the fetched record bytes held in memory by answers not yet sent.

Kafka's fetch.max.bytes (55 MiB) bounds one response; nothing in Kafka bounds their sum, but
Kafka streams a response from the segment files, while this broker reads the records into memory
and encodes them. Eight clients asking 400 MB at once took its RSS past 1 GB. So every fetch asks
for an allowance first: the records of all answers still being written may hold at most
FETCH_MEMORY_MAX_BYTES together. A fetch that finds little room gets a smaller answer (at least
one whole batch, as KIP-74 requires), which is a valid Kafka answer: the client fetches the rest
next time. When that happens, kafka.log says so (at most once every 10 s).

Usage:
    memory = FetchMemory()
    lease = memory.lease()                 # one per connection
    limit = lease.allowance(55 * 2**20)    # before reading
    lease.hold(len(records))               # what the answer now holds
    lease.release()                        # once the answer is written
"""

from __future__ import annotations

import logging
import time

__all__ = ["FetchMemory", "FetchLease", "FETCH_MEMORY_MAX_BYTES"]

log = logging.getLogger(__name__)

# Room for one full-size answer (55 MiB) and some: a lone consumer catching up is not slowed.
FETCH_MEMORY_MAX_BYTES = 64 * 1024 * 1024
_LOG_EVERY_SEC = 10.0


class FetchMemory:
    """Record bytes held by every fetch answer not yet written, against one limit."""

    def __init__(self, limit_bytes: int = FETCH_MEMORY_MAX_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self.in_flight = 0
        self._capped = 0
        self._last_log = float("-inf")

    def lease(self) -> FetchLease:
        return FetchLease(self)

    def allowance(self, wanted: int) -> int:
        """How many record bytes a fetch may read now: `wanted`, or what is left under the cap."""
        room = max(0, self.limit_bytes - self.in_flight)
        if wanted <= room:
            return wanted
        self._note_capped(wanted, room)
        return room

    def _note_capped(self, wanted: int, room: int) -> None:
        self._capped += 1
        now = time.monotonic()
        if now - self._last_log >= _LOG_EVERY_SEC:
            log.info(
                "Fetch answers not yet sent hold %d of at most %d record bytes (the broker's "
                "fetch memory cap); %d fetch(es) since the last note got less than asked "
                "(this one: %d of %d bytes, at least one batch); clients fetch the rest next",
                self.in_flight,
                self.limit_bytes,
                self._capped,
                room,
                wanted,
            )
            self._capped = 0
            self._last_log = now


class FetchLease:
    """One connection's share of FetchMemory: what its answer being written holds."""

    def __init__(self, memory: FetchMemory) -> None:
        self._memory = memory
        self.held = 0

    def allowance(self, wanted: int) -> int:
        return self._memory.allowance(wanted)

    def hold(self, size: int) -> None:
        self.held += size
        self._memory.in_flight += size

    def release(self) -> None:
        """The answer was written (or the connection closed): its bytes are free again."""
        self._memory.in_flight -= self.held
        self.held = 0
