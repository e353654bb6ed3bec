"""`python -m kafka_app broker`: run the embedded broker in the foreground until Ctrl-C or SIGTERM.

Usage: `python -m kafka_app broker --port 9092 --data-dir kafka-data --retention-check-sec 15`
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from kafka_app.broker.errors import BrokerError
from kafka_app.broker.server import BrokerServer
from kafka_app.broker.settings import BrokerSettings
from kafka_app.logs import setup_logging

__all__ = ["main", "main_parser", "run_cli", "settings_from_args", "check_args"]

log = logging.getLogger(__name__)
_DEFAULTS = BrokerSettings()


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kafka_app broker",
        description="An embedded Kafka-protocol broker with Kafka's retention, for offline use.",
    )
    parser.add_argument(
        "--host",
        default=_DEFAULTS.host,
        help="address to listen on and advertise (default: %(default)s)",
    )
    parser.add_argument(
        "--port", type=int, default=_DEFAULTS.port, help="port to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where topics and committed offsets live; kept across restarts "
        "(default: a temporary folder removed on exit)",
    )
    parser.add_argument(
        "--retention-check-sec",
        type=float,
        default=_DEFAULTS.retention_check_sec,
        metavar="N",
        help="seconds between retention checks (default: %(default)s)",
    )
    parser.add_argument(
        "--retention-initial-delay-sec",
        type=float,
        metavar="N",
        default=_DEFAULTS.retention_initial_delay_sec,
        help="seconds before the first retention check, as Kafka (default: %(default)s)",
    )
    parser.add_argument(
        "--max-frame-bytes",
        type=int,
        default=_DEFAULTS.max_frame_bytes,
        metavar="N",
        help="largest request accepted, in bytes (default: %(default)s)",
    )
    parser.add_argument(
        "--auto-create-topics",
        action="store_true",
        help="create unknown topics when a client asks for their metadata",
    )
    parser.add_argument(
        "--connections-max-idle-ms",
        type=int,
        default=_DEFAULTS.connections_max_idle_ms,
        metavar="MS",
        help="close a connection that sends no complete request for this long "
        "(Kafka's connections.max.idle.ms; default %(default)s)",
    )
    parser.add_argument(
        "--group-initial-rebalance-delay-ms",
        type=int,
        metavar="MS",
        default=_DEFAULTS.group_initial_rebalance_delay_ms,
        help="how long a new consumer group waits for more members before its "
        "first rebalance (Kafka's group.initial.rebalance.delay.ms; "
        "default %(default)s; 0 assigns at once)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=_DEFAULTS.max_connections,
        metavar="N",
        help="open connections at most; at the limit the one idle the longest "
        "is closed (Kafka's max.connections; default %(default)s)",
    )
    parser.add_argument(
        "--max-partitions",
        type=int,
        default=_DEFAULTS.max_partitions,
        metavar="N",
        help="partitions of all topics together at most; more is refused with "
        "POLICY_VIOLATION (default %(default)s)",
    )
    parser.add_argument(
        "--default-partitions",
        type=int,
        default=_DEFAULTS.default_partitions,
        metavar="N",
        help="partitions of a topic created automatically (with --auto-create-topics)",
    )
    parser.add_argument(
        "--second-listener",
        default=None,
        metavar="PORT=HOST:PORT",
        help="a second listener on PORT whose clients are told to connect to "
        "HOST:PORT, e.g. a proxy in front of it (Kafka's listeners and "
        "advertised.listeners)",
    )
    parser.add_argument(
        "--log-dir",
        type=Path,
        default=_DEFAULTS.log_dir,
        metavar="DIR",
        help="folder of kafka.log (default: %(default)s)",
    )
    return parser


def settings_from_args(args: argparse.Namespace) -> BrokerSettings:
    return BrokerSettings(
        host=args.host,
        port=args.port,
        data_dir=args.data_dir,
        retention_check_sec=args.retention_check_sec,
        retention_initial_delay_sec=args.retention_initial_delay_sec,
        max_frame_bytes=args.max_frame_bytes,
        auto_create_topics=args.auto_create_topics,
        default_partitions=args.default_partitions,
        connections_max_idle_ms=args.connections_max_idle_ms,
        log_dir=args.log_dir,
        second_listener=args.second_listener,
        group_initial_rebalance_delay_ms=args.group_initial_rebalance_delay_ms,
        max_connections=args.max_connections,
        max_partitions=args.max_partitions,
    )


def _listener(text: str) -> bool:
    try:
        BrokerSettings(second_listener=text)
    except ValueError:
        return False
    return True


def check_args(args: argparse.Namespace) -> str | None:
    """One line saying what is wrong with the options, or None."""
    for name in ("retention_check_sec", "retention_initial_delay_sec"):
        value = getattr(args, name)
        # nan passes every `<= 0` test and makes the retention loop spin on a busy CPU.
        if not math.isfinite(value) or value < 0:
            return f"--{name.replace('_', '-')} must be a finite, non-negative number of seconds, got {value}"
    if args.retention_check_sec == 0:
        return "--retention-check-sec must be positive, got 0"
    if args.connections_max_idle_ms <= 0:
        return f"--connections-max-idle-ms must be positive, got {args.connections_max_idle_ms}"
    if args.group_initial_rebalance_delay_ms < 0:
        return (
            f"--group-initial-rebalance-delay-ms must not be negative, "
            f"got {args.group_initial_rebalance_delay_ms}"
        )
    for name in ("max_connections", "max_partitions"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}"
    if args.default_partitions < 1:
        return f"--default-partitions must be at least 1, got {args.default_partitions}"
    if args.max_frame_bytes < 64:
        return f"--max-frame-bytes must be at least 64, got {args.max_frame_bytes}"
    if not 0 <= args.port <= 65535:
        return f"--port must be 0..65535, got {args.port}"
    if args.second_listener is not None and not _listener(args.second_listener):
        return (
            f"--second-listener must be PORT=HOST:PORT (listen on PORT, advertise HOST:PORT), "
            f"got {args.second_listener!r}"
        )
    for name in ("data_dir", "log_dir"):
        folder = getattr(args, name)
        if folder is not None and folder.exists() and not folder.is_dir():
            return (
                f"--{name.replace('_', '-')} {folder} is a file, not a folder; give a folder path"
            )
    return None


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Exit codes: 0 after Ctrl-C/SIGTERM, 1 when the broker cannot run, 2 for bad options."""
    args = main_parser().parse_args(argv)
    problem = check_args(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        settings = settings_from_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    log_file = setup_logging(settings.log_dir)
    try:
        asyncio.run(_serve(settings, log_file))
    except (BrokerError, OSError) as error:
        log.error("Broker could not run: %s", error)
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass  # Ctrl-C before the signal handler was installed is still a normal exit
    return 0


async def _serve(settings: BrokerSettings, log_file: Path) -> None:
    # Handlers first: a SIGTERM that arrives as soon as the port listens must still stop cleanly.
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopping.set)
    server = BrokerServer(settings)
    await server.start()
    print(
        f"Kafka broker on {settings.host}:{server.port}, data in {server.data_dir}, "
        f"log in {log_file} (Ctrl-C stops)",
        flush=True,
    )
    try:
        await stopping.wait()
    finally:
        await server.stop()
    print("Kafka broker stopped", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(argv)


if __name__ == "__main__":
    sys.exit(main())
