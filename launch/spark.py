"""The Spark app as a run starts it: through its command line, again and again on one checkpoint.

Each start is `python -m spark_app …` (launch/commands.py) with the run's folders, Kafka and
trigger, plus the changes that start asks for, as a new process of the run's group, numbered
(`spark-1`, `spark-2`, …) so every start keeps its own console.

Usage:
    spark = SparkLauncher(group, folders, kafka.bootstrap_servers, "Experience", trigger_sec=1.0)
    process = spark.start(fail_on_data_loss=False)
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from checkpoint_stores import CheckpointPlace
from launch.commands import repartition_state_command, spark_command
from launch.folders import Folders
from launch.group import ProcessGroup
from launch.process import ManagedProcess
from spark_app.settings import SourceKind, SparkAppSettings

__all__ = ["SparkLauncher"]


class SparkLauncher:
    """Starts the Spark app on the run's checkpoint and log folders, numbered per start."""

    def __init__(
        self,
        group: ProcessGroup,
        folders: Folders,
        bootstrap_servers: str,
        topic: str,
        trigger_sec: float,
        python: str = sys.executable,
        name: str = "spark",
        source: SourceKind = "python",
        checkpoint: CheckpointPlace | None = None,
        query: Path | None = None,
        connect: bool = False,
    ) -> None:
        self.group, self.folders, self.bootstrap_servers = group, folders, bootstrap_servers
        # Where the checkpoint lives: the run's folder here, or its path on the run's store.
        self.checkpoint = checkpoint or CheckpointPlace(folder=folders.checkpoints)
        # A user's query module every start runs instead of the counter (None: the counter).
        self.query = query
        # Every start runs its query through Spark Connect (spark_app --connect).
        self.connect = connect
        self.topic, self.trigger_sec, self.python = topic, trigger_sec, python
        # Which Kafka source every start uses unless told otherwise (`run --source`).
        self.source = source
        # A second app beside the first (the upgrade's green) needs its own process names.
        self.name = name
        self.starts = 0
        self.repartitions = 0
        self.current: ManagedProcess | None = None

    def start(self, python: str | None = None, **changes: object) -> ManagedProcess:
        """Start the app with the run's folders, Kafka and trigger, plus `changes` to its
        settings (e.g. `sink="at-least-once"`); a change given as None keeps the default.
        `checkpoint_dir=FOLDER` moves this start's checkpoint to another folder of the same
        place (a copied checkpoint). `python` runs this start on another PySpark's interpreter
        (a scenario's `run --spark`)."""
        self.starts += 1
        argv = spark_command(self._settings(changes), python=python or self.python)
        self.current = self.group.start(f"{self.name}-{self.starts}", argv)
        return self.current

    def repartition_state(
        self, partitions: int, python: str | None = None, **changes: object
    ) -> ManagedProcess:
        """`python -m spark_app repartition-state N` on the checkpoint a start with `changes`
        would run on, as its own process (`spark-repartition-1`, …): it runs between two starts."""
        self.repartitions += 1
        argv = repartition_state_command(
            self._settings(changes), partitions, python=python or self.python
        )
        return self.group.start(f"{self.name}-repartition-{self.repartitions}", argv)

    def _settings(self, changes: dict[str, object]) -> SparkAppSettings:
        given = {name: value for name, value in changes.items() if value is not None}
        place = self.checkpoint
        if "checkpoint_dir" in given:
            place = dataclasses.replace(place, folder=given.pop("checkpoint_dir"))  # type: ignore[arg-type]
        base: dict[str, object] = dict(
            bootstrap_servers=self.bootstrap_servers,
            topic=self.topic,
            checkpoint=place,
            log_dir=self.folders.log,
            trigger_sec=self.trigger_sec,
            source=self.source,
            query=self.query,
            connect=self.connect,
        )
        base.update(given)
        return SparkAppSettings(**base)  # type: ignore[arg-type]
