"""What the app does with a negative key: the seed's deliberate crash, once or every time.

The seed called `Runtime.getRuntime.halt(-1)`: the whole app died on the spot, with no shutdown
hooks and no chance to commit the batch. We do the same from the driver: SIGKILL the JVM (its pid
comes over the Py4J gateway at start) and `os._exit(255)` the Python process.

crash-once remembers the messages it crashed on in `<log-dir>/crashed-on.txt` (written and
fsynced before the kill), so the replay after a restart processes the message normally.

The batch handler writes the lines of the rows before the negative key first, then crashes:
the app dies in the middle of a batch, as a real failure would, so the exactly-once sink must
roll that half-written batch back on the replay and the at-least-once sink shows the duplicates.

Usage:
    policy = NegativeKeyPolicy("crash-once", Path("log"), jvm_pid=1234)
    victim = policy.first_to_crash_on(rows)
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from spark_app.lines.line_template import LineTemplate
from spark_app.lines.output_line import OutputRow
from spark_app.runtime.class_cache import kill_writers, process_alive

__all__ = [
    "CRASH_SIGNAL",
    "NegativeKeyPolicy",
    "arm_crash_signal",
    "outlive_not",
    "CRASH_FILE_NAME",
    "CRASH",
    "CrashLine",
    "crash_line_in",
    "is_negative",
    "message_id",
]

CRASH_FILE_NAME = "crashed-on.txt"
_EXIT_CODE = 255  # what halt(-1) looks like to a shell
# What a crash in a process other than the app's sends the app (a Spark Python worker; under
# --connect, the server's foreachBatch process): the app kills its JVM and exits 255.
CRASH_SIGNAL = signal.SIGUSR1


# How long a crashing worker waits for the app it signalled to go: its JVM, and with it this
# worker's task, go first; the bound keeps a worker whose app never died from lingering.
_OUTLIVE_SEC = 60.0


def outlive_not(app_pid: int) -> None:
    """In a worker that signalled the crash: wait (the task must not finish) until the app is
    gone, then go too, so that no worker of ours outlives the app that died."""
    deadline = time.monotonic() + _OUTLIVE_SEC
    while process_alive(app_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    os._exit(_EXIT_CODE)


def arm_crash_signal(jvm_pid: int) -> None:
    """In the app: on CRASH_SIGNAL, kill the JVM and exit as the seed's halt(-1) did."""

    def die(*_: object) -> None:
        kill_writers()
        os.kill(jvm_pid, signal.SIGKILL)
        os._exit(_EXIT_CODE)

    signal.signal(CRASH_SIGNAL, die)


# The app's last words on a negative key (stderr), as the poison-pill scenario reads them:
# `Negative key -7 (value 7): crashing as the seed did (--on-negative-key crash-always)`.
CrashLine = NamedTuple("CrashLine", [("key", str), ("value", str), ("mode", str)])
CRASH = LineTemplate(
    CrashLine,
    "Negative key {key} (value {value}): crashing as the seed did (--on-negative-key {mode})",
    key=r"\S+",
    value=r"\S+",
    mode=r"[a-z-]+",
)


def crash_line_in(output: str) -> CrashLine | None:
    """The first crash line in the app's console output, if it crashed on a negative key."""
    return CRASH.find(output)


def is_negative(row: OutputRow) -> bool:
    """The producer's negative key (`-42`); a foreign key that merely starts with '-' is not."""
    return row.key is not None and re.fullmatch(r"-\d+", row.key.strip()) is not None


def message_id(row: OutputRow) -> str:
    """The value is a message's identity in this playground; the topic keeps topics apart."""
    return f"{row.topic}:{row.value}"


class NegativeKeyPolicy:
    """Decides whether a batch crashes the app, and performs the crash."""

    def __init__(
        self, mode: str, log_dir: Path, jvm_pid: int | None, app_pid: int | None = None
    ) -> None:
        self.mode = mode
        self.crash_file = log_dir / CRASH_FILE_NAME
        self.jvm_pid = jvm_pid
        # The app's process when the policy runs in another (--connect): the crash signals it.
        self.app_pid = app_pid

    def _crashed_on(self) -> set[str]:
        if not self.crash_file.exists():
            return set()
        return set(self.crash_file.read_text(encoding="utf-8").split())

    def first_to_crash_on(self, rows: Sequence[OutputRow]) -> int | None:
        """Index of the first row that must crash the app, or None."""
        if self.mode == "ignore":
            return None
        seen = self._crashed_on() if self.mode == "crash-once" else set()
        for index, row in enumerate(rows):
            if is_negative(row) and message_id(row) not in seen:
                return index
        return None

    def crash(self, row: OutputRow) -> None:
        """Record the message (crash-once) and kill driver and JVM at once. Never returns."""
        if self.mode == "crash-once":
            self.crash_file.parent.mkdir(parents=True, exist_ok=True)
            with open(self.crash_file, "a", encoding="utf-8") as f:
                f.write(message_id(row) + "\n")
                f.flush()
                os.fsync(f.fileno())
        print(
            CRASH.text(CrashLine(str(row.key), str(row.value), self.mode)),
            file=sys.stderr,
            flush=True,
        )
        if self.app_pid is not None and self.app_pid != os.getpid():
            # Under --connect this is the server's process: the app dies as the seed's did
            # (arm_crash_signal), its JVM with it, and this process with the JVM.
            os.kill(self.app_pid, CRASH_SIGNAL)
            outlive_not(self.app_pid)
        kill_writers()  # the class archive's writer, if one runs: nothing of ours outlives us
        if self.jvm_pid is not None:
            os.kill(self.jvm_pid, signal.SIGKILL)
        os._exit(_EXIT_CODE)
