"""The embedded broker's peak memory (RSS) while several clients fetch as much as they may at once.

The broker runs as its own process (`python -m kafka_app broker`). The script fills one partition
with `--fill-mb` of records (1 MB batches), notes the broker's resident memory, resets its peak
(`/proc/PID/clear_refs`), then `--fetches` clients each send one Fetch from offset 0 asking
`--ask-mb` at the same time (the broker caps a response at fetch.max.bytes, 55 MiB) and read the
whole answer. It prints the RSS before, the peak RSS during the fetches (`VmHWM`), and what each
client received. `--rounds` repeats the burst and reports the highest peak.

Usage:
    uv run python benchmarks/fetch_memory.py                      # 8 fetches of 400 MB asked
    uv run python benchmarks/fetch_memory.py --fetches 1 --rounds 3
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "main_parser"]

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from kafka.protocol.admin.topics import CreateTopicsRequest  # noqa: E402
from kafka.protocol.consumer.fetch import FetchRequest  # noqa: E402
from kafka.protocol.producer.produce import ProduceRequest  # noqa: E402
from kafka.record.default_records import DefaultRecordBatchBuilder  # noqa: E402

from benchmarks.broker_process import broker_process, memory_kb  # noqa: E402
from launch.ports import free_port  # noqa: E402  (the one free_port of tests and benchmarks)

_TOPIC = "big"
_MB = 1_000_000


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetches", type=int, default=8, help="concurrent fetches (default 8)")
    parser.add_argument("--ask-mb", type=int, default=400, help="max_bytes each fetch asks, MB")
    parser.add_argument("--fill-mb", type=int, default=120, help="data in the partition, MB")
    parser.add_argument("--rounds", type=int, default=2, help="bursts of fetches (default 2)")
    return parser


def call(sock: socket.socket, request, version: int, correlation_id: int = 1) -> bytes:
    """Send one request, return the response frame (without its length prefix)."""
    request.API_VERSION = version
    request.with_header(correlation_id=correlation_id, client_id="fetch-memory")
    sock.sendall(bytes(request.encode(header=True, framed=True)))
    size = struct.unpack(">i", _recv(sock, 4))[0]
    return _recv(sock, size)


def _recv(sock: socket.socket, count: int) -> bytes:
    chunks, left = [], count
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def fill(port: int, megabytes: int) -> None:
    """Create the topic and produce `megabytes` MB as 1 MB batches of 10 kB records."""
    Topic = CreateTopicsRequest.CreatableTopic
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        call(
            sock,
            CreateTopicsRequest[7](
                topics=[
                    Topic(
                        name=_TOPIC,
                        num_partitions=1,
                        replication_factor=1,
                        assignments=[],
                        configs=[],
                    )
                ],
                timeout_ms=5000,
                validate_only=False,
            ),
            7,
        )
        for _ in range(megabytes):
            call(sock, _produce_request(_batch()), 8)


def _batch() -> bytes:
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 24,
    )
    for delta in range(95):
        builder.append(delta, int(time.time() * 1000), None, b"v" * 10_000, [])
    return bytes(builder.build())


def _produce_request(records: bytes) -> ProduceRequest:
    Data = ProduceRequest.TopicProduceData
    return ProduceRequest[8](
        transactional_id=None,
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            Data(name=_TOPIC, partition_data=[Data.PartitionProduceData(index=0, records=records)])
        ],
    )


def fetch_all(port: int, ask_bytes: int) -> int:
    """One Fetch from offset 0 asking `ask_bytes`; the size of the answer in bytes."""
    Topic = FetchRequest.FetchTopic
    request = FetchRequest[12](
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=ask_bytes,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        forgotten_topics_data=[],
        rack_id="",
        topics=[
            Topic(
                topic=_TOPIC,
                partitions=[
                    Topic.FetchPartition(
                        partition=0,
                        current_leader_epoch=-1,
                        fetch_offset=0,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=ask_bytes,
                    )
                ],
            )
        ],
    )
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        return len(call(sock, request, 12))


def burst(port: int, pid: int, fetches: int, ask_bytes: int) -> tuple[int, list[int]]:
    """Peak RSS in kB while `fetches` clients fetch at once, and each answer's size."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    sizes: list[int] = [0] * fetches

    def one(index: int) -> None:
        sizes[index] = fetch_all(port, ask_bytes)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(fetches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return memory_kb(pid, "VmHWM"), sizes


def run(args: argparse.Namespace) -> None:
    port = free_port()
    with broker_process(port, "fetch-memory-") as process:
        fill(port, args.fill_mb)
        before = memory_kb(process.pid, "VmRSS")
        print(f"broker RSS after filling {args.fill_mb} MB: {before / 1000:.0f} MB")
        peaks = []
        for round_ in range(1, args.rounds + 1):
            peak, sizes = burst(port, process.pid, args.fetches, args.ask_mb * _MB)
            peaks.append(peak)
            print(
                f"round {round_}: {args.fetches} fetches asking {args.ask_mb} MB got "
                f"{', '.join(f'{s / _MB:.1f}' for s in sizes)} MB; peak RSS {peak / 1000:.0f} MB"
            )
        print(f"peak RSS: {max(peaks) / 1000:.0f} MB (from {before / 1000:.0f} MB)")


def main(argv: Sequence[str] | None = None) -> int:
    run(main_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
