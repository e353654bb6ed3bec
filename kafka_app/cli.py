"""Command line of the Kafka side: `python -m kafka_app [options]` and `python -m kafka_app broker`.

The producer app is the default command; `broker` runs the embedded broker alone (its own
options, see `python -m kafka_app broker --help`). This is the only place that catches the
app's errors: each becomes one line on stderr and a non-zero exit code. Ctrl-C, SIGTERM and SIGHUP
are a normal stop (exit 0).

Usage: `python -m kafka_app --retention-sec 3600` (seed scenario #1), or
       `python -m kafka_app --bootstrap-servers 127.0.0.1:9092` (real Kafka from docker compose).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from kafka_app.console import ProducerConsole
from kafka_app.errors import ProducerAppError
from kafka_app.interrupts import installed
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.logs import setup_logging
from kafka_app.settings import ProducerAppSettings

__all__ = ["main_parser", "run_cli"]

PROG = "python -m kafka_app"
# Options that configure the embedded broker; an existing Kafka has its own settings.
_EMBEDDED_ONLY = ("port", "host", "data_dir", "retention_check_sec", "retention_initial_delay_sec")
_CHOICE_FLAGS = ("--kafka", "--kafka-version", "--brokers", "--offline")
_ADDRESS = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def main_parser() -> argparse.ArgumentParser:
    """The producer app's options; defaults (None here) come from ProducerAppSettings."""
    d = ProducerAppSettings()
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Seed 001's KafkaApp: sends key = value = a counter to a topic every interval; "
        "Enter makes the next key negative. Subcommands: `broker` runs the embedded broker alone, "
        "`image` builds our Kafka image for Docker.",
        argument_default=None,
    )
    kafka = parser.add_argument_group("Kafka")
    kafka.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help="use this Kafka instead of starting one (then the broker options below do not apply)",
    )
    broker = parser.add_argument_group(
        "the broker this app starts (ignored with --bootstrap-servers)"
    )
    broker.add_argument("--host", help=f"address to listen on (default {d.host})")
    broker.add_argument("--port", type=int, help=f"port to listen on (default {d.port})")
    broker.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="keep the broker's data here across runs (default: a temporary folder removed on exit)",
    )
    broker.add_argument(
        "--retention-check-sec",
        type=float,
        metavar="SEC",
        help=f"how often retention deletes expired segments (default {d.retention_check_sec:g})",
    )
    broker.add_argument(
        "--retention-initial-delay-sec",
        type=float,
        metavar="SEC",
        help="wait before the first retention check, as Kafka does "
        f"(default {d.retention_initial_delay_sec:g})",
    )
    topic = parser.add_argument_group("topic")
    topic.add_argument("--topic", help=f"topic name (default {d.topic})")
    topic.add_argument(
        "--partitions", type=int, help=f"partitions of a new topic (default {d.partitions})"
    )
    topic.add_argument(
        "--grow-partitions",
        action="store_true",
        default=None,
        help="if the topic exists with fewer partitions than --partitions, add "
        "partitions up to that many (a key's partition may change; Kafka "
        "never removes partitions)",
    )
    topic.add_argument(
        "--replication-factor",
        type=int,
        metavar="N",
        help=f"replicas of each partition of a new topic (default {d.replication_factor})",
    )
    topic.add_argument(
        "--retention-sec",
        type=float,
        metavar="SEC",
        help=f"retention.ms of the topic, in seconds (default {d.retention_sec:g})",
    )
    topic.add_argument(
        "--segment-sec",
        type=float,
        metavar="SEC",
        help=f"segment.ms of the topic, in seconds (default {d.segment_sec:g})",
    )
    topic.add_argument(
        "--segment-bytes",
        type=int,
        metavar="BYTES",
        help="segment.bytes of the topic (default: the broker's; Kafka 4 refuses < 1048576)",
    )
    app = parser.add_argument_group("producer")
    app.add_argument(
        "--interval-sec",
        type=float,
        metavar="SEC",
        help=f"time between messages (default {d.interval_sec:g})",
    )
    app.add_argument(
        "--acks",
        choices=("all", "1"),
        help=f"acknowledged by every in-sync replica (all) or by the leader alone (1) "
        f"(default {d.acks})",
    )
    app.add_argument(
        "--send-timeout-sec",
        type=float,
        metavar="SEC",
        help=f"give up on a send not acknowledged in this time (default {d.send_timeout_sec:g})",
    )
    app.add_argument(
        "--count", type=int, metavar="N", help="stop after N messages (default: run until stopped)"
    )
    app.add_argument(
        "--burst",
        action="store_true",
        default=None,
        help="with --count: send the N messages as fast as Kafka takes them, without "
        "waiting for each acknowledgement (a backlog in seconds; --interval-sec "
        "and Enter do not apply)",
    )
    app.add_argument(
        "--first-value",
        type=int,
        metavar="N",
        help="the first value to send (default: one after the highest value in the topic)",
    )
    app.add_argument(
        "--records",
        type=Path,
        metavar="FILE.jsonl",
        help="send your own records instead of the counter: one JSON object per line, with a "
        "value, an optional key and an optional event_time (the record's timestamp), in order "
        "at the interval; the producer stops after the last (docs/your-query.md)",
    )
    app.add_argument(
        "--log-dir", type=Path, metavar="DIR", help=f"where kafka.log goes (default {d.log_dir})"
    )
    KafkaChoice.add_arguments(parser)
    return parser


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run `python -m kafka_app`; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["broker"]:
        # The broker command with the choice of Kafka; --kafka embedded runs kafka_app.broker.cli.
        from kafka_app.apache.cli import main as broker_main

        return broker_main(args[1:])
    if args[:1] == ["image"]:
        # Our Kafka image for docker-compose.yml and the Docker tests (docs/producer.md).
        from kafka_app.container.cli import main as image_main

        return image_main(args[1:])
    parsed = main_parser().parse_args(args)
    choice = KafkaChoice.from_args(parsed)
    given = {k: v for k, v in vars(parsed).items() if v is not None}
    problem = _check(given) or choice.problem()
    if problem:
        return _fail(problem, code=2)
    settings = ProducerAppSettings(**given)
    console = ProducerConsole.for_stdout()
    ignored = [f"--{k.replace('_', '-')}" for k in _EMBEDDED_ONLY if k in given]
    ignored += [flag for flag in (a.split("=")[0] for a in args) if flag in _CHOICE_FLAGS]
    if settings.bootstrap_servers is not None and ignored:
        console.note(
            f"note: {', '.join(ignored)} apply only to the broker this app starts; "
            f"with --bootstrap-servers that Kafka's own settings apply"
        )
    return _run(settings, console, choice)


def _run(
    settings: ProducerAppSettings, console: ProducerConsole, choice: KafkaChoice | None = None
) -> int:
    from kafka_app.broker.errors import BrokerError
    from kafka_app.producer import ProducerApp
    from maven_jars import JarFetchError

    # SIGHUP too (a closed terminal): Python's default would end us before Kafka's JVM is stopped.
    with installed():
        try:
            setup_logging(settings.log_dir)
            ProducerApp(settings, console, kafka=choice).run()
        except KeyboardInterrupt:
            console.note("stopped")
        except (ProducerAppError, BrokerError, JarFetchError) as error:
            return _fail(str(error), code=1)
        except OSError as error:
            # A folder we cannot write (--log-dir, --data-dir): the error names the path.
            return _fail(str(error), code=1)
    return 0


def _check(given: dict[str, object]) -> str | None:
    """One line saying what is wrong with the options, or None."""
    records = given.get("records")
    if isinstance(records, Path):
        from kafka_app.user_records import RecordsFileError, read_user_records

        try:
            read_user_records(records)
        except RecordsFileError as error:
            return str(error)
    servers = given.get("bootstrap_servers")
    if isinstance(servers, str):
        for address in servers.split(","):
            match = _ADDRESS.match(address.strip())
            if not match or not 0 < int(match.group(2)) < 65536:
                return f"--bootstrap-servers {servers!r}: {address!r} is not HOST:PORT (e.g. 127.0.0.1:9092)"
    for name, value in given.items():
        # float("nan") and float("inf") parse fine but make a setting that never fires or spins.
        if isinstance(value, float) and not math.isfinite(value):
            return f"--{name.replace('_', '-')} must be a finite number of seconds, got {value}"
    positive = (
        "partitions",
        "replication_factor",
        "send_timeout_sec",
        "retention_sec",
        "segment_sec",
        "retention_check_sec",
        "count",
        "segment_bytes",
        "first_value",
    )
    for name in positive:
        value = given.get(name)
        if isinstance(value, (int, float)) and value <= 0:
            return f"--{name.replace('_', '-')} must be positive, got {value}"
    for name in ("interval_sec", "retention_initial_delay_sec"):
        value = given.get(name)
        if isinstance(value, (int, float)) and value < 0:
            return f"--{name.replace('_', '-')} must not be negative, got {value}"
    if given.get("burst") and given.get("count") is None:
        return "--burst needs --count N: a burst without an end would fill the disk"
    for name in ("data_dir", "log_dir"):
        folder = given.get(name)
        if isinstance(folder, Path) and folder.exists() and not folder.is_dir():
            return (
                f"--{name.replace('_', '-')} {folder} is a file, not a folder; give a folder path"
            )
    port = given.get("port")
    if isinstance(port, int) and not 0 < port < 65536:
        return f"--port must be 1..65535, got {port}"
    unknown = set(given) - {f.name for f in fields(ProducerAppSettings)}
    return f"unknown settings {sorted(unknown)}" if unknown else None


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code
