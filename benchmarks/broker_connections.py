"""How a crowd of idle sockets and one slow client affect a normal client of the embedded broker.

The broker runs as its own process (`python -m kafka_app broker`), as users run it. First a
normal client is timed alone: ApiVersions on a fresh connection, and a kafka-python producer's
`send(...).get()` round trip (acks=all). Then the script opens `--idle` connections that never
send a byte, plus one client that sends a valid request one byte per second, times one
ApiVersions at once (the broker is still taking the crowd in), then the same normal client
again while they are there. The figures are milliseconds: median, 99th
percentile and worst. The script also reports how many of the idle sockets the broker still
holds (past `--max-connections` it closes the idle-longest to make room).

Usage:
    uv run python benchmarks/broker_connections.py                       # 2,000 idle, limit 1000
    uv run python benchmarks/broker_connections.py --max-connections 5000 # no room-making needed
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

__all__ = ["main", "main_parser"]

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.broker_process import broker_process as shared_broker_process  # noqa: E402
from launch.ports import free_port  # noqa: E402  (the one free_port of tests and benchmarks)

_TOPIC = "crowd"


@contextmanager
def broker_process(port: int, max_connections: int) -> Iterator[None]:
    """The embedded broker on `port`, allowing `max_connections` connections at once."""
    with shared_broker_process(port, "broker-connections-", max_connections=max_connections):
        yield


def api_versions_frame(correlation_id: int) -> bytes:
    body = struct.pack(">hhih", 18, 0, correlation_id, 5) + b"bench"
    return struct.pack(">i", len(body)) + body


def api_versions_ms(port: int) -> float:
    """Milliseconds from connect to the ApiVersions answer, on a fresh connection."""
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(api_versions_frame(1))
        size = struct.unpack(">i", sock.recv(4, socket.MSG_WAITALL))[0]
        sock.recv(size, socket.MSG_WAITALL)
    return (time.perf_counter() - started) * 1000


def produce_timer(bootstrap: str) -> tuple[Callable[[], float], Callable[[], None]]:
    """A function timing one acknowledged produce (ms), and one closing the producer."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    if _TOPIC not in admin.list_topics():
        admin.create_topics([NewTopic(_TOPIC, 1, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0, acks="all")
    producer.send(_TOPIC, b"warm-up").get(10)

    def once() -> float:
        started = time.perf_counter()
        producer.send(_TOPIC, b"x" * 100).get(10)
        return (time.perf_counter() - started) * 1000

    return once, lambda: producer.close(5)


def sample(step: Callable[[], float], count: int) -> list[float]:
    return [step() for _ in range(count)]


def summary(values: Sequence[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{statistics.median(ordered):.2f} | {p99:.2f} | {ordered[-1]:.2f}"


def open_idle(port: int, count: int, stack: ExitStack) -> list[socket.socket]:
    return [
        stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
        for _ in range(count)
    ]


def still_open(sockets: Sequence[socket.socket]) -> int:
    """How many of `sockets` the broker has not closed."""
    alive = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            alive += sock.recv(1) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive


def dribble(port: int, stop: threading.Event) -> None:
    """A client that sends a valid ApiVersions one byte per second, until told to stop."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for byte in api_versions_frame(2):
            if stop.wait(1.0):
                return
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return  # the broker closed it (the limit or the idle timeout)


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def run(args: argparse.Namespace) -> None:
    port = free_port()
    with broker_process(port, args.max_connections):
        produce_once, close_producer = produce_timer(f"127.0.0.1:{port}")
        try:
            alone = (
                sample(lambda: api_versions_ms(port), args.samples),
                sample(produce_once, args.samples),
            )
            stop = threading.Event()
            slow = threading.Thread(target=dribble, args=(port, stop), daemon=True)
            with ExitStack() as stack:
                slow.start()
                started = time.perf_counter()
                idle = open_idle(port, args.idle, stack)
                opened_sec = time.perf_counter() - started
                # The broker is still accepting (and, past the limit, closing) the crowd.
                first_ms = api_versions_ms(port)
                crowded = (
                    sample(lambda: api_versions_ms(port), args.samples),
                    sample(produce_once, args.samples),
                )
                held = still_open(idle)
                stop.set()
            slow.join(5)
        finally:
            close_producer()
    print(
        f"{args.idle} idle connections opened in {opened_sec:.2f} s; the broker still held "
        f"{held} of them (--max-connections {args.max_connections}); load average "
        f"{load_average()}; the first ApiVersions after them took {first_ms:.1f} ms\n"
    )
    print("| normal client | alone: median | p99 | max | with the crowd: median | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| ApiVersions, fresh connection (ms) | {summary(alone[0])} | {summary(crowded[0])} |")
    print(f"| produce, acks=all (ms) | {summary(alone[1])} | {summary(crowded[1])} |")


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--idle", type=int, default=2000, help="idle connections (default %(default)s)"
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=200,
        help="timed requests per measurement (default %(default)s)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        help="the broker's --max-connections (default %(default)s)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        run(main_parser().parse_args(argv))
    except KeyboardInterrupt:
        return 0
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
