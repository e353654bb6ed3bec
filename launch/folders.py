"""A run's own folders: the Spark app's checkpoints and log, Kafka's data, the consoles.

Fresh for every run (a scenario's, the run's shared broker's); the apps are told them on their
command lines, so nothing of one run lands in another's.

Usage:
    folders = Folders(run_dir)
    SparkLauncher(group, folders, ...)   # --checkpoint-dir folders.checkpoints, --log-dir folders.log
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spark_app.settings import SparkAppSettings

__all__ = ["Folders"]


@dataclass(frozen=True)
class Folders:
    """A run's own folders, fresh for every run."""

    root: Path

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def log(self) -> Path:
        return self.root / "log"

    @property
    def kafka_data(self) -> Path:
        return self.root / "kafka-data"

    @property
    def processes(self) -> Path:
        return self.root / "processes"

    @property
    def output_log(self) -> Path:
        return SparkAppSettings(log_dir=self.log).output_file
