"""Which Kafka a command starts: Apache Kafka itself (the default) or, `--offline`, the
embedded broker.

One small frozen dataclass beside each app's settings, so the embedded broker's settings stay
its own, and scenarios build `KafkaChoice(kafka="embedded")` instead of typing flags. Apache
Kafka is the default because it is what production runs (docs/decisions.md); the embedded
broker stands in for it on a machine that cannot reach Maven Central.

Apache Kafka's default version and the check of a version asked for live here too: they are part
of the choice (`--kafka-version`), and apache/jars.py, which fetches that version, reads them.

Usage:
    KafkaChoice.add_arguments(parser); choice = KafkaChoice.from_args(args)
    argv = [*broker_settings.to_argv(), *KafkaChoice(kafka="apache", brokers=3).to_argv()]
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, fields

__all__ = ["KAFKA_KINDS", "KafkaChoice", "DEFAULT_VERSION", "VERSION_HINT", "check_version"]

KAFKA_KINDS = ("embedded", "apache")

# The newest 4.1 patch Maven Central serves (2026-11-24). 4.1 is the line the project's facts
# were gathered for (docs/decisions.md); `--kafka-version` picks another.
DEFAULT_VERSION = "4.1.2"
VERSION_HINT = f"Maven Central serves Kafka 4.0.0 to 4.4.0; try {DEFAULT_VERSION} (the default)"
_VERSION = re.compile(r"^4\.\d{1,2}\.\d{1,2}$")


def check_version(version: str) -> str | None:
    """One line saying what is wrong with a Kafka version, or None."""
    if not _VERSION.match(version):
        return (
            f"--kafka-version {version!r} is not a Kafka 4.x version like {DEFAULT_VERSION}; "
            f"{VERSION_HINT}"
        )
    return None


@dataclass(frozen=True)
class KafkaChoice:
    """`kafka`: "apache" or "embedded"; `kafka_version` None is the pinned default; `brokers` 1 or 3."""

    kafka: str = "apache"
    kafka_version: str | None = None
    brokers: int = 1

    @property
    def apache(self) -> bool:
        return self.kafka == "apache"

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("which Kafka")
        group.add_argument(
            "--kafka",
            choices=KAFKA_KINDS,
            default=None,
            help="apache: Apache Kafka itself, fetched once from Maven Central (needs "
            "Java 17; the default); embedded: our Kafka-protocol broker, offline",
        )
        group.add_argument(
            "--offline",
            action="store_true",
            default=None,
            help="the embedded broker: nothing is fetched (the same as --kafka embedded)",
        )
        group.add_argument(
            "--kafka-version",
            metavar="V",
            default=None,
            help=f"Apache Kafka's version (default {DEFAULT_VERSION}; with --kafka apache)",
        )
        group.add_argument(
            "--brokers",
            type=int,
            metavar="N",
            default=None,
            help="1, or 3 for a KRaft quorum of three nodes with replication factor 3 "
            "and min.insync.replicas 2 (with --kafka apache)",
        )

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> KafkaChoice:
        """Reads the options (None: not given) and removes them from `args`. `--offline` with
        `--kafka apache` is refused by `problem()`, through the `offline` it leaves on `args`."""
        given = {f.name: vars(args).pop(f.name, None) for f in fields(cls)}
        offline = bool(vars(args).pop("offline", None))
        if offline:
            given["kafka"] = "embedded" if given["kafka"] in (None, "embedded") else "--offline"
        return cls(**{name: value for name, value in given.items() if value is not None})

    def problem(self) -> str | None:
        """One line saying what is wrong with the choice, or None."""
        if self.kafka not in KAFKA_KINDS:
            return "--offline and --kafka apache disagree: give one"
        if not self.apache and (self.kafka_version is not None or self.brokers != 1):
            return (
                "--kafka-version and --brokers apply to Apache Kafka, not the embedded broker: "
                "drop --offline / --kafka embedded"
            )
        if self.brokers not in (1, 3):
            return f"--brokers must be 1 or 3 (a KRaft quorum needs a majority), got {self.brokers}"
        return check_version(self.kafka_version) if self.kafka_version is not None else None

    def to_argv(self) -> list[str]:
        """The options as both CLIs read them back: `--kafka` always (a child must not depend
        on a default that may change), the others when they differ from the defaults."""
        default = KafkaChoice()
        return [
            "--kafka",
            self.kafka,
            *(
                part
                for f in fields(self)
                if f.name != "kafka" and getattr(self, f.name) != getattr(default, f.name)
                for part in (f"--{f.name.replace('_', '-')}", str(getattr(self, f.name)))
            ),
        ]
