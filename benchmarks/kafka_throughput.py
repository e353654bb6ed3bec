"""Produce and consume throughput of the embedded broker, beside any other Kafka, same clients.

Each broker gets a fresh one-partition topic per client; the client produces N small messages
(10-byte values, acks=all, waiting until every one is acknowledged), then a fresh consumer
reads all N from the beginning. Rates are messages per second of wall time. The embedded
broker runs as its own process (`python -m kafka_app broker`), as users run it, so it does
not share a GIL with the client being measured; the script stops every broker it started.
Rounds interleave brokers and clients; the table gives the best and the median of the rounds
and the load average, because other work on the machine only ever slows a run down.

`kafka-python` reads with large fetches and is timed from its first record on;
`kafka-python-defaults` reads with the client's default settings and is timed from the
consumer's constructor, as a user sees it. After the rounds, a few fresh default consumers per
broker are timed from constructor to first record (`--first-record-tries`, median and best).

On a machine with two or more CPUs every broker is pinned to the last CPU and the clients to
the others (`--no-pin` turns it off). Unpinned, the client's two threads and the broker fight
for the same cores, and the scheduler's choices (who wakes whom, on which core) move
kafka-python's produce rate by a factor of two from run to run; pinned, each broker is
measured under the same conditions and the runs agree.

Usage:
    uv run python benchmarks/kafka_throughput.py                       # embedded broker only
    uv run python benchmarks/kafka_throughput.py --peer 127.0.0.1:9092  # also a running Kafka
    uv run python benchmarks/kafka_throughput.py --tansu PATH/TO/tansu    # also tansu's binary
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Broker", "Result", "Summary", "main", "measure", "summarise"]

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.broker_process import broker_command, descendants, process_parents, started  # noqa: E402
from launch.ports import free_port  # noqa: E402  (the one free_port of tests and benchmarks)

_RUN_TIMEOUT_SEC = 300.0


@dataclass(frozen=True)
class Result:
    broker: str
    client: str
    produced_per_sec: float
    consumed_per_sec: float
    # CPU seconds the broker process used per 100k messages; None for a broker we did not start.
    produce_cpu: float | None = None
    consume_cpu: float | None = None


@dataclass(frozen=True)
class Summary:
    """One broker and client over all rounds: best and median rates, least broker CPU."""

    broker: str
    client: str
    rounds: int
    produce_best: float
    produce_median: float
    consume_best: float
    consume_median: float
    produce_cpu: float | None
    consume_cpu: float | None


@dataclass(frozen=True)
class Broker:
    name: str
    bootstrap: str
    pid: int | None = None

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the broker so far (Linux /proc), if we started it: its process
        and its children's (Apache Kafka's JVM runs under our wrapper)."""
        if self.pid is None:
            return None
        return sum(_cpu_seconds(pid) for pid in descendants(self.pid, process_parents()))


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0  # it ended while we looked
    # utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def payloads(count: int) -> Iterator[bytes]:
    """Ten-byte values, distinct so a lost or doubled message would show in a check."""
    return (b"%010d" % i for i in range(count))


# Each function connects and moves one warm-up message before it starts the clock, so the rates
# are steady-state throughput, not client start-up (librdkafka alone takes ~0.5 s to start).
# Each returns the seconds its `count` messages took; the topic holds count + 1 messages.

# --- kafka-python ------------------------------------------------------------------------


def kafka_python_produce(bootstrap: str, topic: str, count: int) -> float:
    return _kafka_python_produce(bootstrap, topic, count, acks="all", linger_ms=5, batch_size=65536)


def kafka_python_produce_defaults(bootstrap: str, topic: str, count: int) -> float:
    """The client's defaults (kafka-python 3: acks=all, idempotent, no linger, 16 KiB batches)."""
    return _kafka_python_produce(bootstrap, topic, count)


def _kafka_python_produce(bootstrap: str, topic: str, count: int, **settings: object) -> float:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, **settings)
    try:
        producer.send(topic, value=b"warming-up", partition=0).get(timeout=30)
        started = time.perf_counter()
        for value in payloads(count):
            producer.send(topic, value=value, partition=0)
        producer.flush(timeout=_RUN_TIMEOUT_SEC)
        return time.perf_counter() - started
    finally:
        producer.close(timeout=10)


def kafka_python_consume(bootstrap: str, topic: str, count: int) -> float:
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=None,
        enable_auto_commit=False,
        fetch_max_bytes=8 * 1024 * 1024,
        max_partition_fetch_bytes=8 * 1024 * 1024,
    )
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        _until(
            lambda: sum(len(r) for r in consumer.poll(timeout_ms=500, max_records=1).values()), 1
        )
        started = time.perf_counter()
        _until(
            lambda: sum(
                len(r) for r in consumer.poll(timeout_ms=500, max_records=100_000).values()
            ),
            count,
        )
        return time.perf_counter() - started
    finally:
        consumer.close()


def kafka_python_consume_defaults(bootstrap: str, topic: str, count: int) -> float:
    """As a user with default settings sees it: constructor to last record, first fetch included."""
    return _fresh_default_consumer_sec(bootstrap, topic, count, max_records=500)


def first_record_ms(bootstrap: str, topic: str) -> float:
    """A fresh kafka-python consumer with default settings: constructor to first record, in ms.

    It assigns and seeks to the beginning as `kafka_python_consume` does. Its bootstrap Metadata
    asks for no topics, so it learns the topic's leader in a second Metadata, which kafka-python
    sends only `retry_backoff_ms` (100 ms) after the first: a broker that answers the empty list
    with every topic (tansu does; Kafka does not) saves those 100 ms.
    """
    return _fresh_default_consumer_sec(bootstrap, topic, 1, max_records=1) * 1000


def _fresh_default_consumer_sec(bootstrap: str, topic: str, count: int, max_records: int) -> float:
    """Seconds from a default KafkaConsumer's constructor to its `count`-th record from offset 0
    (500 records a poll is kafka-python's own default)."""
    from kafka import KafkaConsumer, TopicPartition

    started = time.perf_counter()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        _until(
            lambda: sum(
                len(r) for r in consumer.poll(timeout_ms=500, max_records=max_records).values()
            ),
            count,
        )
        return time.perf_counter() - started
    finally:
        consumer.close()


def _until(step: Callable[[], int], count: int) -> None:
    """Call `step` (which returns how many messages it got) until `count` arrived or time is up.
    A poll may bring more than asked for (the producer's warm-up message is in the topic too)."""
    seen = 0
    deadline = time.monotonic() + _RUN_TIMEOUT_SEC
    while seen < count and time.monotonic() < deadline:
        seen += step()
    if seen < count:
        raise RuntimeError(f"consumed {seen} of {count} messages in {_RUN_TIMEOUT_SEC} s")


# --- confluent-kafka (librdkafka) ----------------------------------------------------------


def confluent_produce(bootstrap: str, topic: str, count: int) -> float:
    from confluent_kafka import KafkaException, Producer

    failures: list[str] = []

    def on_delivery(error: object, _message: object) -> None:
        if error is not None:
            failures.append(str(error))

    # Delivery reports for failures only: a Python callback per message would measure the client.
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "linger.ms": 5,
            "enable.idempotence": True,
            "delivery.report.only.error": True,
        }
    )
    producer.produce(topic, value=b"warming-up", partition=0, on_delivery=on_delivery)
    producer.flush(30)
    started = time.perf_counter()
    for value in payloads(count):
        while True:
            try:
                producer.produce(topic, value=value, partition=0, on_delivery=on_delivery)
                break
            except BufferError:
                # The local queue is full: let librdkafka deliver some before adding more.
                producer.poll(0.05)
        producer.poll(0)
    if producer.flush(_RUN_TIMEOUT_SEC) != 0:
        raise KafkaException(f"{topic}: messages still unacknowledged after {_RUN_TIMEOUT_SEC} s")
    elapsed = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} messages failed, first: {failures[0]}")
    return elapsed


def confluent_consume(bootstrap: str, topic: str, count: int) -> float:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    # assign(), not subscribe(): no consumer group round trips in what we measure.
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 100,
        }
    )

    def step(wanted: int) -> int:
        # consume() waits for num_messages or the timeout: never ask for more than remain.
        return sum(m.error() is None for m in consumer.consume(num_messages=wanted, timeout=0.5))

    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        _until(lambda: step(1), 1)
        started = time.perf_counter()
        remaining = [count]

        def counted() -> int:
            got = step(min(10_000, remaining[0]))
            remaining[0] -= got
            return got

        _until(counted, count)
        return time.perf_counter() - started
    finally:
        consumer.close()


# A client's produce and consume: each takes (bootstrap, topic, count) and returns seconds.
Client = tuple[Callable[[str, str, int], float], Callable[[str, str, int], float]]

CLIENTS: dict[str, Client] = {
    "kafka-python": (kafka_python_produce, kafka_python_consume),
    # Same producer; the consumer with kafka-python's defaults, timed from its constructor.
    "kafka-python-defaults": (kafka_python_produce, kafka_python_consume_defaults),
    "confluent-kafka": (confluent_produce, confluent_consume),
}


# --- brokers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pinning:
    """Which CPUs the brokers and the clients may run on; empty sets mean anywhere."""

    brokers: frozenset[int] = frozenset()
    clients: frozenset[int] = frozenset()

    @classmethod
    def split(cls) -> Pinning:
        """The last CPU for the brokers, the others for the clients; none when fewer than two."""
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if len(cpus) < 2:
            return cls()
        return cls(frozenset(cpus[-1:]), frozenset(cpus[:-1]))

    def describe(self) -> str:
        if not self.brokers:
            return "not pinned"
        return f"brokers pinned to CPU {_cpu_list(self.brokers)}, clients to CPU {_cpu_list(self.clients)}"


def _cpu_list(cpus: frozenset[int]) -> str:
    return ",".join(str(cpu) for cpu in sorted(cpus))


@contextmanager
def affinity(cpus: frozenset[int]) -> Iterator[None]:
    """Run the block with this process allowed only `cpus`; a child started inside inherits it."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@contextmanager
def running(
    name: str, command: Sequence[str], port: int, log: Path, cpus: frozenset[int] = frozenset()
) -> Iterator[Broker]:
    """Run a broker process (on `cpus`, if given) and yield it; stop it afterwards."""
    with started(command, port, log, cpus=cpus) as (process, _seconds):
        yield Broker(name, f"127.0.0.1:{port}", process.pid)


def tansu_command(binary: str, port: int) -> list[str]:
    url = f"tcp://127.0.0.1:{port}"
    return [
        binary,
        "broker",
        "--listener-url",
        url,
        "--advertised-listener-url",
        url,
        "--storage-engine",
        "memory://tansu/",
    ]


# --- measuring -----------------------------------------------------------------------------


def create_topic(bootstrap: str, topic: str) -> None:
    from kafka.admin import KafkaAdminClient

    with KafkaAdminClient(bootstrap_servers=bootstrap) as admin:
        admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}})
        admin.wait_for_topics([topic])


def summarise(runs: Sequence[Result]) -> Summary:
    """Best (what the broker can do when the machine lets it) and median (what is typical)."""
    first = runs[0]
    produced = [r.produced_per_sec for r in runs]
    consumed = [r.consumed_per_sec for r in runs]
    return Summary(
        first.broker,
        first.client,
        len(runs),
        max(produced),
        statistics.median(produced),
        max(consumed),
        statistics.median(consumed),
        _least([r.produce_cpu for r in runs]),
        _least([r.consume_cpu for r in runs]),
    )


def _least(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def measure(
    broker: Broker, client: str, count: int, clients: Mapping[str, Client] = CLIENTS
) -> Result:
    produce, consume = clients[client]
    topic = f"bench-{client}-{uuid.uuid4().hex[:8]}"
    create_topic(broker.bootstrap, topic)
    cpu_before = broker.cpu_seconds()
    produced = produce(broker.bootstrap, topic, count)
    cpu_between = broker.cpu_seconds()
    consumed = consume(broker.bootstrap, topic, count)
    cpu_after = broker.cpu_seconds()
    per_100k = 100_000 / count
    produce_cpu = consume_cpu = None
    # Includes each client's start-up and warm-up message: a little above the steady state.
    if cpu_before is not None and cpu_between is not None and cpu_after is not None:
        produce_cpu = (cpu_between - cpu_before) * per_100k
        consume_cpu = (cpu_after - cpu_between) * per_100k
    return Result(broker.name, client, count / produced, count / consumed, produce_cpu, consume_cpu)


def table(results: Sequence[Summary]) -> str:
    def cpu(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    lines = [
        f"{'broker':<22} {'client':<22} {'produce best':>13} {'median':>9} {'consume best':>13} "
        f"{'median':>9} {'broker CPU s/100k: produce':>27} {'consume':>8}"
    ]
    for r in results:
        lines.append(
            f"{r.broker:<22} {r.client:<22} {r.produce_best:>13,.0f} {r.produce_median:>9,.0f} "
            f"{r.consume_best:>13,.0f} {r.consume_median:>9,.0f} "
            f"{cpu(r.produce_cpu):>27} {cpu(r.consume_cpu):>8}"
        )
    return "\n".join(lines)


def paired(ours: Sequence[Result], theirs: Sequence[Result], rate: str) -> float:
    """Median of the round-by-round ratios of `rate`: within a round the two brokers were
    measured seconds apart, so this ratio is the least disturbed by other load."""
    return statistics.median(getattr(a, rate) / getattr(b, rate) for a, b in zip(ours, theirs))


def ratios(runs: dict[tuple[str, str], list[Result]], base: str) -> str:
    """Each other broker against `base`, per client: >1 means the embedded broker is faster."""
    lines = []
    for (broker, client), theirs in runs.items():
        ours = runs.get((base, client))
        if broker == base or not ours:
            continue
        o, t = summarise(ours), summarise(theirs)
        lines.append(
            f"{base} / {broker} with {client}: "
            f"produce x{o.produce_best / t.produce_best:.2f} best, "
            f"x{o.produce_median / t.produce_median:.2f} median, "
            f"x{paired(ours, theirs, 'produced_per_sec'):.2f} paired; "
            f"consume x{o.consume_best / t.consume_best:.2f} best, "
            f"x{o.consume_median / t.consume_median:.2f} median, "
            f"x{paired(ours, theirs, 'consumed_per_sec'):.2f} paired"
        )
    return "\n".join(lines)


# Rounds of one broker against itself scatter by more than this, so a paired ratio above it is
# "as fast"; below it, the embedded broker is measurably slower.
ON_PAR = 0.95


def targets(runs: dict[tuple[str, str], list[Result]]) -> str:
    """The issue's targets, met or not, for what this run measured."""
    lines = []
    ours, peer = runs.get(("embedded", "kafka-python")), runs.get(("tansu", "kafka-python"))
    if ours and peer:
        produce, consume = (
            paired(ours, peer, "produced_per_sec"),
            paired(ours, peer, "consumed_per_sec"),
        )
        met = min(produce, consume) >= ON_PAR
        lines.append(
            f"target: kafka-python at least as fast as tansu in this run (paired ratio >= {ON_PAR}): "
            f"{'met' if met else 'NOT met'} (produce x{produce:.2f}, consume x{consume:.2f})"
        )
    rd = runs.get(("embedded", "confluent-kafka"))
    if rd:
        met = summarise(rd).produce_best >= 100_000
        lines.append(
            "target: librdkafka produces >= 100,000 msg/s to the embedded broker: "
            + ("met" if met else "NOT met")
        )
    return "\n".join(lines)


def first_records(broker: Broker, tries: int) -> list[float]:
    """`first_record_ms` `tries` times on one fresh topic holding a few records."""
    topic = f"bench-first-{uuid.uuid4().hex[:8]}"
    create_topic(broker.bootstrap, topic)
    kafka_python_produce(broker.bootstrap, topic, 10)
    return [first_record_ms(broker.bootstrap, topic) for _ in range(tries)]


def first_record_line(name: str, times: Sequence[float]) -> str:
    return (
        f"time to first record, {name}, kafka-python defaults: median {statistics.median(times):.0f} ms, "
        f"best {min(times):.0f} ms, over {len(times)} fresh consumers"
    )


def load_average() -> str:
    """The 1-minute load average: how much else competed for the CPUs."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmarks/kafka_throughput.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--messages", type=int, default=100_000, help="messages per measurement (default 100000)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="interleaved rounds; best and median are shown (default 3)",
    )
    parser.add_argument(
        "--clients", default=",".join(CLIENTS), help=f"comma-separated, of {', '.join(CLIENTS)}"
    )
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="also measure this running Kafka (repeatable)",
    )
    parser.add_argument(
        "--tansu", metavar="PATH", help="also start this tansu binary (in-memory) and measure it"
    )
    parser.add_argument(
        "--first-record-tries",
        type=int,
        default=5,
        metavar="N",
        help="fresh consumers timed to their first record, per broker (default 5; 0 skips)",
    )
    parser.add_argument("--no-embedded", action="store_true", help="skip the embedded broker")
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="let brokers and clients share every CPU (default: brokers on the last CPU)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    unknown = [c for c in clients if c not in CLIENTS]
    if unknown:
        print(f"unknown client(s) {unknown}; choose from {list(CLIENTS)}", file=sys.stderr)
        return 2
    pinning = Pinning() if args.no_pin else Pinning.split()
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kafka-bench-")))
        brokers: list[Broker] = []
        if not args.no_embedded:
            port = free_port()
            command = broker_command(port, work / "data", work / "log")
            brokers.append(
                stack.enter_context(
                    running("embedded", command, port, work / "embedded.out", pinning.brokers)
                )
            )
        if args.tansu:
            port = free_port()
            brokers.append(
                stack.enter_context(
                    running(
                        "tansu",
                        tansu_command(args.tansu, port),
                        port,
                        work / "tansu.out",
                        pinning.brokers,
                    )
                )
            )
        brokers += [Broker(f"peer {peer}", peer) for peer in args.peer]
        stack.enter_context(affinity(pinning.clients))
        runs: dict[tuple[str, str], list[Result]] = {}
        loads = [load_average()]
        # Rounds go over every broker and client in turn, so a burst of other load on the
        # machine hits them alike instead of one broker's whole series.
        for round_number in range(1, args.repeat + 1):
            for broker in brokers:
                for client in clients:
                    result = measure(broker, client, args.messages)
                    print(
                        f"  round {round_number}: {broker.name} / {client}: "
                        f"produce {result.produced_per_sec:,.0f}/s, "
                        f"consume {result.consumed_per_sec:,.0f}/s",
                        flush=True,
                    )
                    runs.setdefault((broker.name, client), []).append(result)
            loads.append(load_average())
        results = [summarise(r) for r in runs.values()]
        first = (
            {b.name: first_records(b, args.first_record_tries) for b in brokers}
            if args.first_record_tries > 0
            else {}
        )
    print(
        f"\n{args.messages:,} messages of 10 bytes each, one partition, acks=all, {args.repeat} rounds; "
        f"{os.cpu_count()} CPUs, {pinning.describe()}, "
        f"load average {' -> '.join(loads)} (start, after each round)\n"
    )
    print(table(results))
    if not args.no_embedded and len({r.broker for r in results}) > 1:
        print()
        print(ratios(runs, "embedded"))
    if first:
        print()
        print("\n".join(first_record_line(name, times) for name, times in first.items()))
        if not args.tansu:
            print(
                "(no tansu here: pass --tansu PATH to compare; see BENCHMARKS.md for how to get it)"
            )
    summary = targets(runs)
    if summary:
        print()
        print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
