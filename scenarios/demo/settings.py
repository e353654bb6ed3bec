"""The demo's settings: one frozen dataclass, and the command line that builds it.

Defaults follow seed 001 and the two apps: topic `Experience`, `log/` and `checkpoints/` in
the current folder, one message a second, and the real stack: Apache Kafka on
port 9092 read through Spark's connector (`--offline`: the embedded broker and our source).
Retention starts at one hour (seed 001's first experiment), so the app may stay down while a room
talks; `t` switches to the seed's 15 s for the retention race.

Usage:
    settings = settings_from_args(main_parser().parse_args(["--retention-sec", "15"]))
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from checkpoint_stores import STORES, CheckpointPlace, StoreKind
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.settings import ProducerAppSettings
from scenarios.demo.retention import RETENTION_CHOICES, START_RETENTION_SEC
from scenarios.engine.stacks import DEFAULT, Stack, add_stack_options, chosen_stack
from scenarios.web.options import WebChoice, add_web_options, web_choice
from spark_app.settings import SparkAppSettings

__all__ = ["DemoSettings", "main_parser", "settings_from_args"]


@dataclass(frozen=True)
class DemoSettings:
    """Everything `python -m scenarios demo` can be told."""

    bootstrap_servers: str | None = None  # None: the producer starts the stack's Kafka
    port: int = 9092
    stack: Stack = DEFAULT
    topic: str = "Experience"
    log_dir: Path = Path("log")
    checkpoint_dir: Path = Path("checkpoints")
    data_dir: Path | None = None  # None: the broker keeps its data in a temporary folder
    retention_sec: int = START_RETENTION_SEC
    interval_sec: float = 1.0
    # None: fresh exactly when the broker starts empty, because an old checkpoint or output
    # log would then point at messages that no longer exist.
    fresh: bool | None = None
    refresh_sec: float = 1.0
    status_sec: float = 5.0
    python: str = sys.executable
    class_cache_dir: Path | None = None  # None: the Spark app's own default (~/.cache/...)
    # Where the checkpoint lives: this disk, or HDFS or S3 started by the demo (scenarios/demo/store.py).
    checkpoint_store: StoreKind = "local"
    # The live page (`--web`, scenarios/web/): where it is served; None without one.
    web: WebChoice | None = None

    @property
    def starts_kafka(self) -> bool:
        """Whether the producer starts a broker (of the stack's kind) rather than using one."""
        return self.bootstrap_servers is None

    @property
    def kafka(self) -> str:
        """Where the Spark app and the admin client find Kafka."""
        return self.bootstrap_servers or f"127.0.0.1:{self.port}"

    @property
    def output_log(self) -> Path:
        return self.spark_settings().output_file

    @property
    def starts_fresh(self) -> bool:
        if self.fresh is not None:
            return self.fresh
        return self.starts_kafka and self.data_dir is None

    @property
    def retention_choices(self) -> tuple[int, ...]:
        """What `t` cycles through: the starting retention first, then seed 001's other one."""
        return (self.retention_sec, *(c for c in RETENTION_CHOICES if c != self.retention_sec))

    def producer_settings(self) -> ProducerAppSettings:
        embedded = {} if self.bootstrap_servers else {"port": self.port, "data_dir": self.data_dir}
        return ProducerAppSettings(
            bootstrap_servers=self.bootstrap_servers,
            topic=self.topic,
            retention_sec=self.retention_sec,
            interval_sec=self.interval_sec,
            log_dir=self.log_dir,
            **embedded,
        )

    def kafka_choice(self) -> KafkaChoice | None:
        """Which Kafka the producer starts (the stack's), or None when it uses a given one."""
        return KafkaChoice(kafka=self.stack.kafka) if self.starts_kafka else None

    def spark_settings(self, store_url: str | None = None) -> SparkAppSettings:
        """The app's settings; `store_url` is where the demo's store answered (hdfs, s3)."""
        cache = {} if self.class_cache_dir is None else {"class_cache_dir": self.class_cache_dir}
        return SparkAppSettings(
            bootstrap_servers=self.kafka,
            topic=self.topic,
            source=self.stack.app_source,  # type: ignore[arg-type]
            checkpoint=CheckpointPlace(self.checkpoint_store, self.checkpoint_dir, store_url),
            log_dir=self.log_dir,
            **cache,
        )


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios demo",
        description="One terminal, both apps: watch the producer, the Spark app, the output "
        "log's verdict and the checkpoint; crash, kill, stop, restart and reset with "
        "single keys (Enter k s r d t q).",
    )
    parser.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help="use this Kafka instead of the broker the producer starts",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=9092,
        help="port of the broker the producer starts (default 9092)",
    )
    parser.add_argument("--topic", default="Experience")
    parser.add_argument(
        "--run-dir",
        type=Path,
        metavar="DIR",
        help="put log/, checkpoints/ and kafka-data/ in DIR (kept between runs)",
    )
    parser.add_argument("--log-dir", type=Path, help="default log (or RUN_DIR/log)")
    parser.add_argument(
        "--checkpoint-dir", type=Path, help="default checkpoints (or RUN_DIR/checkpoints)"
    )
    parser.add_argument(
        "--retention-sec",
        type=int,
        default=START_RETENTION_SEC,
        help=f"topic retention at start (default {START_RETENTION_SEC}: one hour, so the app "
        "may stay down while you talk); t switches between it and the other of seed 001's "
        "two: 15 s (the retention race) or 1 h",
    )
    parser.add_argument("--interval-sec", type=float, default=1.0, help="seconds between messages")
    fresh = parser.add_mutually_exclusive_group()
    fresh.add_argument(
        "--fresh",
        dest="fresh",
        action="store_true",
        default=None,
        help="delete the checkpoint, the output log and the broker's data folder "
        "at start (default when the broker starts empty)",
    )
    fresh.add_argument(
        "--keep",
        dest="fresh",
        action="store_false",
        help="keep the checkpoint, the output log and Kafka's data from an earlier run",
    )
    parser.add_argument(
        "--checkpoint-store",
        choices=STORES,
        default="local",
        help="keep the checkpoint on this disk (local, the default), or on HDFS or "
        "S3 (s3proxy) that the demo starts and stops; on a store it lives as "
        "long as the demo",
    )
    parser.add_argument(
        "--class-cache-dir",
        type=Path,
        metavar="DIR",
        help="where the Spark app keeps its class archive (its --class-cache-dir; "
        "default ~/.cache/checkpoint-experience)",
    )
    add_stack_options(parser)
    add_web_options(parser)
    return parser


def settings_from_args(args: argparse.Namespace) -> DemoSettings:
    run_dir: Path | None = args.run_dir
    return DemoSettings(
        bootstrap_servers=args.bootstrap_servers,
        port=args.port,
        stack=chosen_stack(args),
        topic=args.topic,
        log_dir=args.log_dir or (run_dir / "log" if run_dir else Path("log")),
        checkpoint_dir=args.checkpoint_dir
        or (run_dir / "checkpoints" if run_dir else Path("checkpoints")),
        data_dir=run_dir / "kafka-data" if run_dir and not args.bootstrap_servers else None,
        retention_sec=args.retention_sec,
        interval_sec=args.interval_sec,
        fresh=args.fresh,
        class_cache_dir=args.class_cache_dir,
        checkpoint_store=args.checkpoint_store,
        web=web_choice(args),
    )
