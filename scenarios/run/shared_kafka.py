"""One Kafka for a run's scenarios that need no broker of their own (issue 35).

A scenario used to start its own broker, 6 to 8 s of Apache Kafka's JVM each time, 19 to 26
times in `run all`. A run of two scenarios or more now starts one broker of the run's kind
before the first, in the run folder (`<run>/kafka/`), and stops it after the last. A scenario
whose Kafka is a single broker reached directly uses it, with a topic of its own
(`Experience-<scenario>-<time>`) whose retention its producer sets, as with a Kafka given by
`--bootstrap-servers`; the broker's retention check runs at the run's timings, as a
scenario's own broker would. Scenarios that kill or upgrade brokers (a cluster) or cut Kafka
off (a proxy in front of it) keep their own (stage/kafka.py decides, at their start).
`--kafka-per-scenario` gives every scenario its own broker, as before.

Usage:
    with shared_kafka(scenarios, settings, base, narrator) as settings:
        ...  # settings.shared_kafka is the broker's address, or None when not worth one
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from launch.folders import Folders
from launch.group import ProcessGroup
from launch.kafka import KafkaSide
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.report.narration import Narrator

__all__ = ["FOLDER", "shared_kafka", "worth_sharing"]

FOLDER = "kafka"  # under the run folder: the broker's data, log and console


def worth_sharing(scenarios: Sequence[Scenario], settings: RunSettings) -> bool:
    """Whether a run-wide broker saves anything: two scenarios or more that could use it, no
    Kafka given with --bootstrap-servers, and not --kafka-per-scenario."""
    single_broker = [s for s in scenarios if s.kafka_brokers == 1]
    return settings.share_kafka and settings.bootstrap_servers is None and len(single_broker) >= 2


@contextmanager
def shared_kafka(
    scenarios: Sequence[Scenario], settings: RunSettings, base: Path, narrator: Narrator
) -> Iterator[RunSettings]:
    """`settings` with the run's broker in `shared_kafka` while the block runs; the broker is
    stopped however the block ends. `settings` as they are when sharing saves nothing."""
    if not worth_sharing(scenarios, settings):
        yield settings
        return
    folders = Folders(base / FOLDER)
    for folder in (folders.log, folders.processes):
        folder.mkdir(parents=True, exist_ok=True)
    with ProcessGroup(
        folders.processes, cwd=folders.root, env={"PYTHONPATH": str(PROJECT_ROOT)}
    ) as group:
        # No topic and no producer here: each scenario makes its own.
        side = KafkaSide(
            group,
            folders,
            settings.timings,
            topic="",
            retention_sec=0.0,
            python=settings.python,
            progress=narrator.waiting,
            kind=settings.kafka,
            kafka_version=settings.kafka_version or None,
        )
        side.start_broker()
        narrator.announce(
            f"one {settings.kafka} Kafka at {side.bootstrap_servers} for this run's "
            f"scenarios, each with a topic of its own (those that kill, upgrade or "
            f"cut Kafka start their own; --kafka-per-scenario gives each its own)"
        )
        yield replace(settings, shared_kafka=side.bootstrap_servers)
