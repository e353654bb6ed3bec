"""What a data folder becomes after a failed write: offline until the broker restarts.

Apache Kafka's LogDirFailureChannel: an IOException on a log directory takes that directory
offline, every partition on it answers KAFKA_STORAGE_ERROR, and only a restart (after the
operator fixed the disk) brings it back. The broker has one data folder, so it is all or nothing:
the process stays up and answers every request (Kafka halts once its last log directory failed;
here a client gets an error code, never a dropped connection), but nothing is read from or
written to the folder again, and the stop writes no recovery point and no clean-shutdown marker.

Usage:
    health = DataDirHealth(Path("kafka-data"))
    health.check()                                   # raises KafkaStorageError once offline
    raise health.fail(path, error, "rolling a segment")  # after undoing what the step did
"""

from __future__ import annotations

import logging
from pathlib import Path

from kafka_app.broker.errors import KafkaStorageError

__all__ = ["DataDirHealth"]

_log = logging.getLogger(__name__)


class DataDirHealth:
    """Online until the first failed write in the data folder; then offline for good."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.offline_reason: str | None = None

    @property
    def online(self) -> bool:
        return self.offline_reason is None

    def check(self) -> None:
        """Raise KafkaStorageError if the folder went offline (every read and write asks first)."""
        if self.offline_reason is not None:
            raise KafkaStorageError(
                f"the data folder {self.data_dir} is offline since "
                f"{self.offline_reason}; restart the broker once the disk "
                f"is fixed"
            )

    def fail(self, path: Path, error: OSError, step: str) -> KafkaStorageError:
        """Take the folder offline because `step` failed on `path`; return the error to raise."""
        reason = f"{step} failed on {path}: {error.strerror or error}"
        if self.offline_reason is None:
            self.offline_reason = reason
            # Kafka's line: "Stopping serving logs in dir ..." (ReplicaManager.handleLogDirFailure).
            _log.error(
                "Data folder %s is now offline: %s. Every partition answers "
                "KAFKA_STORAGE_ERROR until the broker restarts.",
                self.data_dir,
                reason,
            )
        return KafkaStorageError(f"cannot write to disk: {reason}")
