"""The embedded broker against Apache Kafka, side by side in one run (issue 21).

The script starts both brokers itself, as users start them (`python -m kafka_app broker
[--kafka apache]`), and stops every one at the end, also when a measurement fails or the script
is interrupted (Ctrl-C, SIGTERM, SIGHUP). Every measurement alternates the two brokers, so a
burst of other load on a shared machine hits both alike; the ratios, embedded ÷ Apache, are the
figures to read, not the absolute values.

1. Throughput: N messages of 10 bytes produced (acks=all) then read from offset 0, with
   kafka-python tuned (linger 5 ms, 64 KiB batches, 8 MiB fetches), kafka-python with its
   defaults (the consumer timed from its constructor) and confluent-kafka; the brokers pinned
   to the last CPU and the clients to the others, as in kafka_throughput.py (--no-pin: not).
2. A fresh kafka-python consumer's first record (default settings, assign + seek to the
   beginning), from its constructor: median and best of --first-record-tries.
3. RSS of each broker (its process and children: Apache Kafka is our wrapper plus its JVM):
   after start, after the work above, and the peak.
4. Start, from the process start to the first ApiVersions answer, on a fresh data folder; and
   a restart on a folder holding --restart-messages (100k) messages: to the answer, and to a
   fresh consumer's record at offset 0. Not pinned: a user's start has every core.

Usage:
    uv run python benchmarks/broker_compare.py --messages 50000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.broker_process import KAFKAS, broker_command, memory_kb, started, tree_memory_kb  # noqa: E402
from benchmarks.kafka_throughput import (  # noqa: E402
    Broker,
    Client,
    Pinning,
    Result,
    affinity,
    confluent_consume,
    confluent_produce,
    create_topic,
    first_record_ms,
    kafka_python_consume,
    kafka_python_consume_defaults,
    kafka_python_produce,
    kafka_python_produce_defaults,
    load_average,
    measure,
    paired,
    summarise,
)
from launch.ports import free_port  # noqa: E402  (the one free_port of tests and benchmarks)

__all__ = ["CLIENTS", "Figure", "judge", "main", "table"]

CLIENTS: dict[str, Client] = {
    "kafka-python-tuned": (kafka_python_produce, kafka_python_consume),
    "kafka-python-defaults": (kafka_python_produce_defaults, kafka_python_consume_defaults),
    "confluent-kafka": (confluent_produce, confluent_consume),
}
NAMES = {"embedded": "embedded", "apache": "Apache Kafka"}


@dataclass(frozen=True)
class Figure:
    """One measure on both brokers; `ratio` is embedded ÷ Apache (given, for paired rates)."""

    what: str
    unit: str
    embedded: float
    apache: float
    paired_ratio: float | None = None

    @property
    def ratio(self) -> float:
        return self.paired_ratio if self.paired_ratio is not None else self.embedded / self.apache


@dataclass(frozen=True)
class Target:
    """The issue's line for one measure: embedded ÷ Apache at least (or at most) `limit`."""

    label: str
    measures: tuple[str, ...]
    limit: float
    at_least: bool


TARGETS = (
    Target(
        "throughput with kafka-python >= 1.0x Kafka's (paired)",
        tuple(
            f"{client}: {way} msg/s"
            for client in ("kafka-python-tuned", "kafka-python-defaults")
            for way in ("produce", "consume")
        ),
        1.0,
        at_least=True,
    ),
    Target("first record <= 1.2x Kafka's (median)", ("first record, median",), 1.2, at_least=False),
    Target(
        "start <= 1/5 of Kafka's (median)",
        ("start, fresh folder, to ApiVersions", "restart, data on disk, to ApiVersions"),
        0.2,
        at_least=False,
    ),
)


def judge(figures: Sequence[Figure], targets: Sequence[Target] = TARGETS) -> list[str]:
    """One line per target: met or not, with the ratios it was judged on."""
    by_name = {f.what: f for f in figures}
    lines = []
    for target in targets:
        ratios = {name: by_name[name].ratio for name in target.measures if name in by_name}
        if not ratios:
            continue
        met = all(
            r >= target.limit if target.at_least else r <= target.limit for r in ratios.values()
        )
        shown = ", ".join(f"{name} x{ratio:.2f}" for name, ratio in ratios.items())
        lines.append(f"target: {target.label}: {'met' if met else 'NOT met'} ({shown})")
    return lines


def table(figures: Sequence[Figure]) -> str:
    """The side-by-side table in Markdown, ready for BENCHMARKS.md."""
    lines = ["| measure | embedded | Apache Kafka | embedded ÷ Apache |", "|---|---:|---:|---:|"]
    for f in figures:
        paired_note = " (paired)" if f.paired_ratio is not None else ""
        lines.append(
            f"| {f.what} | {_value(f.embedded, f.unit)} | {_value(f.apache, f.unit)} | "
            f"x{f.ratio:.2f}{paired_note} |"
        )
    return "\n".join(lines)


def _value(value: float, unit: str) -> str:
    if unit == "msg/s":
        return f"{value:,.0f}"
    if unit == "ms":
        return f"{value:,.0f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:,.0f} {unit}"


# --- measuring ------------------------------------------------------------------------------


@contextmanager
def broker(
    kafka: str, folder: Path, cpus: frozenset[int] = frozenset()
) -> Iterator[tuple[Broker, float]]:
    """One broker on a free port with its data in `folder`; yield it and its seconds to answer."""
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    command = broker_command(port, folder / "data", folder / "log", kafka=kafka)
    with started(command, port, folder / "out.txt", cpus=cpus) as (process, seconds):
        yield Broker(kafka, f"127.0.0.1:{port}", process.pid), seconds


# Messages per client and broker moved once before the rounds and not counted: Kafka's JVM
# compiles its hot paths during its first few thousand requests (a cold first round measured
# 5,620 consumed msg/s against 200k+ warm), which is start-up, not throughput.
_WARM_UP_MESSAGES = 5_000


def throughput(brokers: Sequence[Broker], count: int, rounds: int) -> list[Figure]:
    """Each client on both brokers, rounds interleaved (the order flips every round)."""
    for one in brokers:
        for client in CLIENTS:
            measure(one, client, _WARM_UP_MESSAGES, CLIENTS)
    runs: dict[tuple[str, str], list[Result]] = {}
    for number in range(rounds):
        for one in brokers if number % 2 == 0 else list(reversed(brokers)):
            for client in CLIENTS:
                result = measure(one, client, count, CLIENTS)
                runs.setdefault((one.name, client), []).append(result)
                print(
                    f"  round {number + 1}: {NAMES[one.name]} / {client}: "
                    f"produce {result.produced_per_sec:,.0f}/s, "
                    f"consume {result.consumed_per_sec:,.0f}/s",
                    flush=True,
                )
    figures = []
    for client in CLIENTS:
        ours, theirs = runs[("embedded", client)], runs[("apache", client)]
        for way, rate in (("produce", "produced_per_sec"), ("consume", "consumed_per_sec")):
            figures.append(
                Figure(
                    f"{client}: {way} msg/s",
                    "msg/s",
                    statistics.median(getattr(r, rate) for r in ours),
                    statistics.median(getattr(r, rate) for r in theirs),
                    paired_ratio=paired(ours, theirs, rate),
                )
            )
        # The broker's own share of the produce time: least over the rounds, as in kafka_throughput.py.
        cpu = [summarise(ours).produce_cpu, summarise(theirs).produce_cpu]
        if None not in cpu:
            figures.append(Figure(f"{client}: broker CPU per 100k produced", "s", cpu[0], cpu[1]))
    return figures


def first_records(brokers: Sequence[Broker], tries: int) -> list[Figure]:
    """Fresh default consumers, alternating brokers, each from its constructor to one record."""
    topics = {}
    for one in brokers:
        topics[one.name] = f"bench-first-{uuid.uuid4().hex[:8]}"
        create_topic(one.bootstrap, topics[one.name])
        kafka_python_produce(one.bootstrap, topics[one.name], 10)
    times: dict[str, list[float]] = {one.name: [] for one in brokers}
    for _ in range(tries):
        for one in brokers:
            times[one.name].append(first_record_ms(one.bootstrap, topics[one.name]))
    print(f"  first record, ms: {times}", flush=True)
    return [
        Figure(
            "first record, median",
            "ms",
            statistics.median(times["embedded"]),
            statistics.median(times["apache"]),
        ),
        Figure("first record, best", "ms", min(times["embedded"]), min(times["apache"])),
    ]


def memory(brokers: Sequence[Broker], field: str) -> dict[str, float]:
    """`field` (VmRSS, VmHWM) of each broker's process tree, in MB."""
    return {
        one.name: tree_memory_kb(one.pid, field) / 1024 for one in brokers if one.pid is not None
    }


def starts(work: Path, tries: int) -> Figure:
    """Start on a fresh data folder to the first answer, brokers alternating, median."""
    seconds: dict[str, list[float]] = {kafka: [] for kafka in KAFKAS}
    for number in range(tries):
        for kafka in KAFKAS:
            with broker(kafka, work / f"fresh-{kafka}-{number}") as (_one, took):
                seconds[kafka].append(took)
    print(f"  start, fresh folder, s: {seconds}", flush=True)
    return Figure(
        "start, fresh folder, to ApiVersions",
        "s",
        statistics.median(seconds["embedded"]),
        statistics.median(seconds["apache"]),
    )


def restarts(work: Path, messages: int, tries: int) -> list[Figure]:
    """Fill one folder per broker with `messages`, then restart on it: to the answer, and to a
    fresh consumer's record at offset 0 (kafka-python defaults, as `first_record_ms`)."""
    topic = "bench-restart"
    for kafka in KAFKAS:
        with broker(kafka, work / f"kept-{kafka}") as (one, _took):
            create_topic(one.bootstrap, topic)
            confluent_produce(one.bootstrap, topic, messages)
    answer: dict[str, list[float]] = {kafka: [] for kafka in KAFKAS}
    record: dict[str, list[float]] = {kafka: [] for kafka in KAFKAS}
    for _ in range(tries):
        for kafka in KAFKAS:
            with broker(kafka, work / f"kept-{kafka}") as (one, took):
                answer[kafka].append(took)
                record[kafka].append(took + first_record_ms(one.bootstrap, topic) / 1000)
    print(
        f"  restart with {messages:,} messages, s to answer: {answer}, to offset 0: {record}",
        flush=True,
    )
    return [
        Figure(
            "restart, data on disk, to ApiVersions",
            "s",
            statistics.median(answer["embedded"]),
            statistics.median(answer["apache"]),
        ),
        Figure(
            "restart, data on disk, to record at offset 0",
            "s",
            statistics.median(record["embedded"]),
            statistics.median(record["apache"]),
        ),
    ]


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    # SystemExit unwinds the `with` blocks, which stop every broker; the default action would not.
    raise SystemExit(128 + signum)


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmarks/broker_compare.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=50_000,
        help="messages per throughput measurement (default 50000)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="interleaved throughput rounds (default 3)"
    )
    parser.add_argument(
        "--first-record-tries",
        type=int,
        default=7,
        metavar="N",
        help="fresh consumers per broker (default 7)",
    )
    parser.add_argument("--starts", type=int, default=3, help="fresh starts per broker (default 3)")
    parser.add_argument(
        "--restarts",
        type=int,
        default=3,
        help="restarts on the filled folder per broker (default 3)",
    )
    parser.add_argument(
        "--restart-messages",
        type=int,
        default=100_000,
        help="messages on disk for the restarts (default 100000)",
    )
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin brokers and clients to separate CPUs"
    )
    return parser


def run(args: argparse.Namespace, work: Path, loads: list[str]) -> tuple[list[Figure], Pinning]:
    pinning = Pinning() if args.no_pin else Pinning.split()
    figures: list[Figure] = []
    with ExitStack() as stack:
        brokers = []
        for kafka in KAFKAS:
            one, _took = stack.enter_context(broker(kafka, work / f"work-{kafka}", pinning.brokers))
            brokers.append(one)
        idle = memory(brokers, "VmRSS")
        apache = next(one for one in brokers if one.name == "apache")
        assert apache.pid is not None  # this script started it
        wrapper = memory_kb(apache.pid, "VmRSS") / 1024
        print(
            f"  RSS after start, MB: {idle}, of which Apache Kafka's Python wrapper {wrapper:.0f}",
            flush=True,
        )
        with affinity(pinning.clients):
            figures += throughput(brokers, args.messages, args.repeat)
            loads.append(load_average())
            figures += first_records(brokers, args.first_record_tries)
        busy, peak = memory(brokers, "VmRSS"), memory(brokers, "VmHWM")
        for what, sizes in (
            ("RSS after start", idle),
            ("RSS after the work above", busy),
            ("RSS peak", peak),
        ):
            figures.append(Figure(what, "MB", sizes["embedded"], sizes["apache"]))
    loads.append(load_average())
    figures.append(starts(work, args.starts))
    figures += restarts(work, args.restart_messages, args.restarts)
    loads.append(load_average())
    return figures, pinning


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)
    began = time.strftime("%d %b %Y, %H:%M UTC", time.gmtime())
    loads = [load_average()]
    with tempfile.TemporaryDirectory(prefix="broker-compare-") as folder:
        figures, pinning = run(args, Path(folder), loads)
    print(
        f"\n{began}; {args.messages:,} messages of 10 bytes, one partition, acks=all, {args.repeat} rounds; "
        f"{os.cpu_count()} CPUs, throughput: {pinning.describe()}, starts: not pinned; "
        f"load average {' -> '.join(loads)} "
        "(start, after the throughput rounds, before the starts, at the end)\n"
    )
    print(table(figures))
    print()
    print("\n".join(judge(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
