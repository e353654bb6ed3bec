"""`python -m kafka_app broker [--kafka {apache,embedded}] [--offline] [--kafka-version V] [--brokers N] ...`

The embedded broker's own options, plus the choice of Kafka. `--kafka embedded` (`--offline`)
hands the rest to the embedded broker's CLI unchanged; `--kafka apache` (the default) maps the
same options onto Apache Kafka (kafka_app/apache/config.py) and runs it in the foreground until Ctrl-C,
SIGTERM or SIGHUP, which stop every JVM before the exit (code 0).

Usage: `python -m kafka_app broker --kafka apache --port 19092 --data-dir kafka-data`
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType

from kafka_app.broker import cli as broker_cli
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.logs import setup_logging
from maven_jars import JarFetchError

__all__ = ["main", "main_parser"]

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def main_parser() -> argparse.ArgumentParser:
    parser = broker_cli.main_parser()
    parser.description = (
        "A Kafka broker for the playground: Apache Kafka itself (the default), "
        "or the embedded Kafka-protocol broker (--offline)."
    )
    KafkaChoice.add_arguments(parser)
    return parser


def _strip_choice(argv: Sequence[str]) -> list[str]:
    """argv without --kafka/--kafka-version/--brokers (and their values), for the embedded CLI."""
    small = argparse.ArgumentParser(add_help=False)
    KafkaChoice.add_arguments(small)
    return small.parse_known_args(list(argv))[1]


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes: 0 after Ctrl-C/SIGTERM/SIGHUP, 1 when Kafka cannot run, 2 for bad options."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = main_parser().parse_args(argv)
    choice = KafkaChoice.from_args(args)
    problem = choice.problem()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not choice.apache:
        return broker_cli.run_cli(_strip_choice(argv))
    problem = broker_cli.check_args(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        settings = broker_cli.settings_from_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if choice.brokers > 1 and settings.second_listener is not None:
        print(
            "error: --second-listener works with one broker (every node would bind its port); "
            "drop --brokers or --second-listener",
            file=sys.stderr,
        )
        return 2
    return _run_apache(settings, choice)


def _run_apache(settings: broker_cli.BrokerSettings, choice: KafkaChoice) -> int:
    from kafka_app.apache.cluster import ApacheKafka
    from kafka_app.broker.errors import BrokerError

    setup_logging(settings.log_dir)
    stopping: list[int] = []  # the signal that stopped us; a list, not an Event (_stopper says why)
    previous = {signum: signal.signal(signum, _stopper(stopping)) for signum in _STOP_SIGNALS}
    kafka = ApacheKafka(settings, brokers=choice.brokers, version=choice.kafka_version)
    try:
        kafka.start()
        logs = (
            kafka.log_file(1) if choice.brokers == 1 else settings.log_dir / "kafka-server-<id>.log"
        )
        print(
            f"Apache Kafka {kafka.version} on {kafka.bootstrap_servers}, data in {kafka.data_dir}, "
            f"log in {logs} (Ctrl-C stops)",
            flush=True,
        )
        while not stopping:
            time.sleep(0.5)
            dead = [node for node in kafka.nodes.values() if not node.running]
            if len(dead) == len(kafka.nodes):
                print(f"error: {dead[0].failure('after it started')}", file=sys.stderr)
                return 1
    except KeyboardInterrupt:
        pass  # a signal while starting: stop what started, exit 0
    except (BrokerError, JarFetchError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        kafka.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print("Apache Kafka stopped", flush=True)
    return 0


def _stopper(stopping: list[int]):  # type: ignore[no-untyped-def]
    def handle(signum: int, frame: FrameType | None) -> None:
        # While starting, interrupt the start (the `finally` stops what is up); later, just end
        # the main loop. Further signals are ignored so the cleanup itself is not cut short.
        # No lock here: the handler runs on the main thread, which may hold that lock when the
        # signal lands (an Event's set() inside its own wait() would wait for ever).
        for other in _STOP_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        if not stopping:
            stopping.append(signum)
            raise KeyboardInterrupt

    return handle
