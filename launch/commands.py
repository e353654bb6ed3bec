"""The apps' command lines, built from their own settings objects: one way to say how to start
the Kafka app, its broker and the Spark app, for the stage, the demo, doctor and the benchmarks.

Each command is `python -m APP` and the options its settings object writes (`to_argv()`, which
the app's command line reads back into an equal object), so a setting is never spelled twice.
A checkpoint store's command is the stores' own: `checkpoint_stores.cli.store_command`, which
launch/store.py starts.

Usage:
    group.start("spark", spark_command(SparkAppSettings(bootstrap_servers="127.0.0.1:9092")))
    group.start("producer", producer_command(ProducerAppSettings(...), KafkaChoice("apache")))
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from kafka_app.broker.settings import BrokerSettings
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.settings import ProducerAppSettings
from spark_app.settings import SparkAppSettings

__all__ = [
    "broker_command",
    "check_query_command",
    "class_archive_command",
    "oracle_command",
    "producer_command",
    "repartition_state_command",
    "spark_command",
]


def broker_command(
    settings: BrokerSettings, choice: KafkaChoice, python: str = sys.executable
) -> list[str]:
    """`python -m kafka_app broker …`: the broker of `choice`'s kind, alone in the foreground."""
    return [python, "-m", "kafka_app", "broker", *settings.to_argv(), *choice.to_argv()]


def producer_command(
    settings: ProducerAppSettings, choice: KafkaChoice | None = None, python: str = sys.executable
) -> list[str]:
    """`python -m kafka_app …`: the producer. With `choice` it starts that Kafka itself, as a
    user's first terminal does (the demo); without, it sends to the Kafka its settings name."""
    return [
        python,
        "-m",
        "kafka_app",
        *settings.to_argv(),
        *(choice.to_argv() if choice is not None else []),
    ]


def spark_command(settings: SparkAppSettings, python: str = sys.executable) -> list[str]:
    """`python -m spark_app …`: the Spark app; `python` may be another PySpark's interpreter."""
    return [python, "-m", "spark_app", *settings.to_argv()]


def repartition_state_command(
    settings: SparkAppSettings, partitions: int, python: str = sys.executable
) -> list[str]:
    """`python -m spark_app repartition-state N …`: the checkpoint of the app `settings` start
    (its own command line, as a user repeats it) spread over N state partitions."""
    return [python, "-m", "spark_app", "repartition-state", str(partitions), *settings.to_argv()]


def class_archive_command(python: str = sys.executable) -> list[str]:
    """`python -m spark_app class-archive`: Spark's class archive written from what the app's
    runs listed (exit 3: nothing to write yet)."""
    return [python, "-m", "spark_app", "class-archive"]


def check_query_command(query: Path, log_dir: Path, python: str = sys.executable) -> list[str]:
    """`python -m spark_app check-query FILE.py`: a query module checked by Spark, no Kafka."""
    return [python, "-m", "spark_app", "check-query", str(query), "--log-dir", str(log_dir)]


def oracle_command(
    query: Path,
    records: Path,
    out: Path,
    topic: str | None = None,
    lost: Sequence[str] = (),
    python: str = sys.executable,
) -> list[str]:
    """`python -m oracle evaluate …`: the query over every record sent (oracle/cli.py); `lost`:
    `TOPIC:PARTITION:FROM-UNTIL` ranges retention deleted first."""
    argv = [python, "-m", "oracle", "evaluate", "--query", str(query), "--records", str(records)]
    argv += ["--out", str(out), *(["--topic", topic] if topic else [])]
    return argv + [part for span in lost for part in ("--lost", span)]
