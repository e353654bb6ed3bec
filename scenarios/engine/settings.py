"""Settings of a scenario run: the seed's timings by default, shorter ones with `--fast`.

Usage: `RunSettings(timings=Timings.fast(), report_dir=Path("reports"))`
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from checkpoint_stores import StoreKind
from scenarios.engine.stacks import stack_of
from spark_app.lines.query_lines import QueryChecked
from spark_app.settings import SourceKind

__all__ = ["PROJECT_ROOT", "RunSettings", "Timings"]

# The apps run as `python -m kafka_app` / `python -m spark_app` from a scenario's own folder,
# so the project root goes on their PYTHONPATH.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Timings:
    """Kafka's retention clock and the apps' pace, plus how long a scenario waits for things."""

    retention_sec: float = 15.0
    segment_sec: float = 1.0
    retention_check_sec: float = 15.0
    retention_initial_delay_sec: float = 30.0
    interval_sec: float = 1.0
    trigger_sec: float = 1.0
    # "Forever", as seed scenario #1 sets it.
    endless_retention_sec: float = 3600.0
    # Spark needs 8-12 s to start on two cores; a busy CI machine more.
    spark_start_timeout_sec: float = 300.0
    kafka_start_timeout_sec: float = 60.0
    run_for_messages: int = 8

    @classmethod
    def seed(cls) -> Timings:
        return cls()

    @classmethod
    def fast(cls) -> Timings:
        """For CI: retention ages out in seconds, the producer sends twice a second.

        Retention leaves a running app a few seconds between planning a batch and reading it:
        a batch whose offsets age out before it reads them fails with data loss, which is the
        short-retention scenario's point but must not happen while the app is up.
        """
        return cls(
            retention_sec=5.0,
            segment_sec=1.0,
            retention_check_sec=1.0,
            retention_initial_delay_sec=0.0,
            interval_sec=0.5,
            run_for_messages=6,
        )

    @property
    def aging_out_timeout_sec(self) -> float:
        """Longest a checkpointed offset can take to be deleted by retention, with slack."""
        return (
            self.retention_initial_delay_sec
            + self.retention_sec
            + 2 * self.retention_check_sec
            + 2 * self.segment_sec
            + 60.0
        )


@dataclass(frozen=True)
class RunSettings:
    """What `python -m scenarios run` was told."""

    timings: Timings = field(default_factory=Timings.seed)
    fast: bool = False
    report_dir: Path | None = None
    guided: bool = False
    # None: each scenario starts its own broker on a free port, of this kind (read by the stage's
    # Kafka part only, scenarios/engine/stage/kafka.py): Apache Kafka, or our embedded broker
    # (--offline). The default is the real stack, apache/connector (scenarios/engine/stacks.py).
    bootstrap_servers: str | None = None
    kafka: str = "apache"
    # The run's own broker, started once for its scenarios (scenarios/run/shared_kafka.py): a
    # scenario with a single broker reached directly uses it with a topic of its own. None:
    # each starts its own. `share_kafka` False (--kafka-per-scenario): never one for the run.
    shared_kafka: str | None = None
    share_kafka: bool = True
    python: str = sys.executable
    # The Spark app's Kafka source: Spark's own connector (fetched once from Maven Central), or
    # ours (--offline); read by the stage's app part only (scenarios/engine/stage/app.py).
    source: SourceKind = "spark-kafka"
    # The PySpark the Spark app runs on, and the interpreter of its environment (`run --spark`:
    # scenarios/engine/spark_envs.py); "" means the project's own, the locked one.
    spark_version: str = ""
    spark_python: str = sys.executable
    # Apache Kafka's version for the brokers a scenario starts (`--kafka-version`, a Kafka 4.x
    # release Maven Central serves); "" means kafka_app's pinned default.
    kafka_version: str = ""
    # Where the Spark app keeps its checkpoint (`--checkpoint-store`): "local", the scenario's
    # folder; "hdfs" or "s3", a store the stage starts before the app (stage/store.py) and
    # stops with the scenario, its data with it.
    checkpoint_store: StoreKind = "local"
    # The Spark app runs its query through Spark Connect (`run --connect`, `matrix --api`).
    connect: bool = False
    # A user's own query module (`run --query FILE.py`) instead of the seed's counter: the app
    # runs it (spark_app --query) and the oracle judges it at the end (stage.judge_query).
    query: Path | None = None
    # A user's own records the producer sends instead of the counter (`run --records FILE`).
    records: Path | None = None
    # What Spark said of it before the run (`python -m spark_app check-query`, read back by
    # scenarios/run/query_check.py): its mode and KEY, and what its result depends on.
    query_checked: QueryChecked | None = None
    # Write Spark's class archive between scenarios from what their apps listed, until it is in
    # place (scenarios/run/class_archive.py). The command line's runs do; a test's run of
    # stand-in scenarios starts no Spark and leaves the machine's cache alone.
    class_archive: bool = False

    @property
    def stack(self) -> str:
        """Which Kafka and which source the Spark app reads it with, as `KAFKA/SOURCE`
        (scenarios/engine/stacks.py): "embedded/python", "apache/connector", …; a Kafka given
        with --bootstrap-servers is "external"."""
        stack = stack_of(self)
        return f"external/{stack.source}" if self.bootstrap_servers else stack.name
