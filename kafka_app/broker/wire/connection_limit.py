"""Kafka's max.connections for one broker: at most N open client connections.

Kafka's own default is unlimited, and at its limit Kafka stops accepting until a connection
closes, so 2,000 idle sockets would lock every new client out for connections.max.idle.ms
(10 minutes). A playground is better served by Kafka's other rule, the one its SocketServer
applies when the inter-broker listener needs room (`closeExcessConnections` closes
`Selector.lowestPriorityChannel()`, the least recently used connection): here every newcomer
at the limit makes room by closing the connection that has been idle the longest. A connection
with a request in flight (a long-polling Fetch, a JoinGroup) is closed only if every other one
is busy too. Each connection is one file descriptor, so the limit also keeps the broker below
`ulimit -n`.

Usage:
    slots = ConnectionSlots(limit=1000)
    slots.admit(connection)      # may close the idle-longest one
    ...
    slots.release(connection)
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

__all__ = ["ConnectionSlots", "Evictable"]

log = logging.getLogger(__name__)


class Evictable(Protocol):
    """What the limit needs to know about a connection."""

    peer: str
    last_active: float  # time.monotonic() of its last complete request or response
    busy: bool  # a request is being answered

    def close(self) -> None: ...


class ConnectionSlots:
    """The open connections of one broker, at most `limit` of them."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("the connection limit must be at least 1")
        self.limit = limit
        self._open: dict[Evictable, None] = {}  # a dict keeps them in arrival order

    def __len__(self) -> int:
        return len(self._open)

    def admit(self, connection: Evictable) -> None:
        """Count `connection` in, first closing the idle-longest ones past the limit."""
        while len(self._open) >= self.limit:
            victim = self._least_recently_active()
            self.release(victim)
            log.warning(
                "Closing connection from %s, idle %.1f s: %d connections open "
                "(max.connections); a new one needs the room",
                victim.peer,
                time.monotonic() - victim.last_active,
                self.limit,
            )
            victim.close()
        self._open[connection] = None

    def release(self, connection: Evictable) -> None:
        """Count a closed connection out; idempotent."""
        self._open.pop(connection, None)

    def _least_recently_active(self) -> Evictable:
        idle = [c for c in self._open if not c.busy]
        return min(idle or self._open, key=lambda c: c.last_active)
