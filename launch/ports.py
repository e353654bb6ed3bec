"""Ports on this machine: one nothing listens on, whether one is taken, whether one answers.

Every process the playground starts on a port of its own (a broker, a store, a proxy) gets it
from `free_port`, so runs side by side never meet on a port; 9092 only when the OS hands it out.

Usage:
    port = free_port()
    group.start("broker", broker_command(BrokerSettings(port=port, ...)))
    wait_until(lambda: port_open(port), timeout=60, what="the broker to listen")
"""

from __future__ import annotations

import socket

__all__ = ["free_port", "port_is_free", "port_open"]


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now (never 9092 unless the OS hands it out)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:`port` now."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether `port` could be bound now (an earlier run's app may still hold it)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True
