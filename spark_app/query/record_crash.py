"""The seed's crash, for any query: a record whose key begins with "-" kills the app as it is read.

The counter crashes in its batch handler, where it sees the keys. A user's query changes the rows
before the sink sees them, so for a query module the crash comes before the query, where every
query starts: the records. `guarded(records)` passes them through a Python function
(`mapInPandas`, schema unchanged) that looks at each record's key. A key beginning with "-" is
the playground's crash mark: the producer's negative key (`-42`), or, for records of a user's
own file, the key the producer marked when Enter was pressed. With crash-once the record's
identity (topic, partition, offset) is written to `<log-dir>/crashed-on.txt` first, so the
replay after a restart reads it and goes on; crash-always crashes on every attempt; ignore
passes it.

The function runs in a Spark Python worker, not in the app's process. It prints the crash line
(negative_key.py's `CRASH`, as the counter's) and signals the app (SIGUSR1), which kills its JVM
and exits 255 as the counter's crash does; the worker waits, so its task never finishes. On a
cluster the worker belongs to an executor on this machine, and the signal reaches the app all
the same: the whole app dies, as the seed's did (docs/your-query.md#the-crash-on-a-record).

Usage:
    crash = RecordCrash("crash-once", Path("log"), app_pid=os.getpid())
    records = crash.guarded(records)
    crash.arm(jvm_pid)        # in the app, once its JVM runs
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from spark_app.query.negative_key import (
    CRASH,
    CRASH_FILE_NAME,
    CRASH_SIGNAL,
    CrashLine,
    arm_crash_signal,
    outlive_not,
)

__all__ = ["CRASH_MARK", "RecordCrash", "record_id"]

CRASH_MARK = "-"


def record_id(topic: str, partition: int, offset: int) -> str:
    """A record's identity, the same in a replay: where Kafka holds it."""
    return f"{topic}:{partition}:{offset}"


class RecordCrash:
    """Crashes the app on a marked record (see the module docstring); picklable to workers."""

    def __init__(self, mode: str, log_dir: Path, app_pid: int) -> None:
        self.mode = mode
        self.crash_file = (log_dir / CRASH_FILE_NAME).resolve()
        self.app_pid = app_pid

    def guarded(self, records: Any) -> Any:
        """The records, unchanged, through the crash's look at each key."""
        if self.mode == "ignore":
            return records
        return records.mapInPandas(self._pass, records.schema)

    def _pass(self, frames: Iterator[Any]) -> Iterator[Any]:
        for frame in frames:
            for topic, partition, offset, key, value in zip(
                frame["topic"], frame["partition"], frame["offset"], frame["key"], frame["value"]
            ):
                text = _text(key)
                if text is not None and text.startswith(CRASH_MARK):
                    self._maybe_crash(record_id(topic, int(partition), int(offset)), text, value)
            yield frame

    def _maybe_crash(self, identity: str, key: str, value: Any) -> None:
        if self.mode == "crash-once" and identity in _crashed_on(self.crash_file):
            return
        if self.mode == "crash-once":
            with open(self.crash_file, "a", encoding="utf-8") as f:
                f.write(identity + "\n")
                f.flush()
                os.fsync(f.fileno())
        print(
            CRASH.text(CrashLine(key, _text(value) or "", self.mode)), file=sys.stderr, flush=True
        )
        os.kill(self.app_pid, CRASH_SIGNAL)
        outlive_not(self.app_pid)  # the app kills this worker's JVM; the task never finishes

    def arm(self, jvm_pid: int) -> None:
        """In the app: on the worker's signal, kill the JVM and exit as the seed's halt(-1)."""
        arm_crash_signal(jvm_pid)


def _crashed_on(path: Path) -> set[str]:
    return set(path.read_text(encoding="utf-8").split()) if path.exists() else set()


def _text(raw: Any) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw).decode("utf-8", errors="replace")
    return str(raw)
