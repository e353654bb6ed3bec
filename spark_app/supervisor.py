"""`python -m spark_app --supervise`: restart the app after a failure, as `spark-submit --supervise`.

Spark's standalone cluster restarts a supervised driver whenever it exits with a failure. That
is how seed 000's app survived a network outage: it died, came back, and caught up from the
offsets in its checkpoint. Restarting blindly also has a failure mode: an app that dies on the
same message every time (a poison pill, data Kafka no longer has) restarts forever. So this
supervisor:

- runs the app as a child process and restarts it after a non-zero exit, waiting 1 s, 2 s,
  4 s, ... (at most `max_backoff_sec`) and printing each restart with the app's last line;
- stops on a clean exit (0), and on bad usage (exit 2: a restart cannot fix an option);
- reads the checkpoint after each failure: when the app failed `give_up_after` times in a row
  without its checkpoint moving (no batch committed), it gives up and says so, because the
  next restart would fail the same way. A failure the app calls retriable (Kafka did not
  answer) is not such a loop: the outage may end, so it keeps trying, with the same backoff;
- passes SIGTERM and Ctrl-C on to the app and then stops, without restarting it.

Usage: `Supervisor(child_argv, Path("checkpoints")).run()`  # returns the exit code to use
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NamedTuple

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError, error_in_text
from spark_app.lines.line_template import LineTemplate

__all__ = [
    "SupervisorSettings",
    "Supervisor",
    "GIVE_UP",
    "GiveUpLine",
    "RESTART",
    "RestartLine",
    "SAY_PREFIX",
    "checkpoint_position",
    "child_argv",
    "supervisor_lines",
]

USAGE_EXIT = 2
SUPERVISOR_FLAGS = {"--supervise": 0, "--give-up-after": 1, "--max-backoff-sec": 1}


@dataclass(frozen=True)
class SupervisorSettings:
    """How patient the supervisor is."""

    give_up_after: int = 3
    first_backoff_sec: float = 1.0
    max_backoff_sec: float = 60.0


def child_argv(argv: Sequence[str]) -> list[str]:
    """The app's own options: `argv` without the supervisor's (the child must not supervise)."""
    kept: list[str] = []
    skip = 0
    for arg in argv:
        name = arg.split("=", 1)[0]
        if skip:
            skip -= 1
        elif name in SUPERVISOR_FLAGS:
            skip = SUPERVISOR_FLAGS[name] if "=" not in arg else 0
        else:
            kept.append(arg)
    return kept


def checkpoint_position(checkpoint: Path) -> tuple[int | None, int | None]:
    """(last committed batch, pending batch): it moves exactly when the app made progress."""
    try:
        info = read_checkpoint(checkpoint)
    except CheckpointError:
        return None, None
    return info.last_committed_id, info.pending_id


# Every line the supervisor prints starts so, to tell it from the app's own lines.
SAY_PREFIX = "supervisor: "


# A failure it will retry, and the end of a loop: the lines the scenarios read.
RestartLine = NamedTuple(
    "RestartLine", [("number", int), ("backoff_sec", float), ("code", int), ("reason", str)]
)
GiveUpLine = NamedTuple(
    "GiveUpLine", [("failures", int), ("where", str), ("code", int), ("reason", str)]
)
RESTART = LineTemplate(
    RestartLine,
    "restart {number} in {backoff_sec:g} s; the app exited with {code}: {reason}",
    number=r"\d+",
    backoff_sec=r"[\d.e+-]+",
    code=r"-?\d+",
    reason=r".*",
)
GIVE_UP = LineTemplate(
    GiveUpLine,
    "giving up: the app failed {failures} times in a row without "
    "its checkpoint moving ({where}); the next restart would fail the same way. "
    "Last exit {code}: {reason} Fix the cause (see `python -m spark_app "
    "inspect`), then start it again.",
    failures=r"\d+",
    where=r"[^)]*",
    code=r"-?\d+",
    reason=r".*",
)


def parse_supervisor_line(line: str) -> RestartLine | GiveUpLine | None:
    """A line of the supervised app's console read back; None unless it is one of these two."""
    if not line.startswith(SAY_PREFIX):
        return None
    text = line[len(SAY_PREFIX) :].rstrip()
    return RESTART.read(text) or GIVE_UP.read(text)


def supervisor_lines(output: str) -> list[RestartLine | GiveUpLine]:
    """Every restart and give-up line in a supervised app's console output, in order."""
    lines = (parse_supervisor_line(line) for line in output.splitlines())
    return [line for line in lines if line is not None]


def _without_prefix(line: str | None) -> str:
    return (line or "(no message)").removeprefix("spark_app: ")


def _retriable(last_line: str | None) -> bool:
    error = error_in_text(last_line or "")
    return error is not None and error.retriable


class Supervisor:
    """Runs `command` until it exits cleanly, is stopped, or fails in a loop."""

    def __init__(
        self,
        command: Sequence[str],
        checkpoint: Path,
        settings: SupervisorSettings = SupervisorSettings(),
        say: Callable[[str], None] = lambda line: print(f"{SAY_PREFIX}{line}", flush=True),
    ) -> None:
        self.command = list(command)
        self.checkpoint = checkpoint
        self.settings = settings
        self.say = say
        self.restarts = 0
        self._child: subprocess.Popen[str] | None = None
        self._stopping = False

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            return self._loop()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _loop(self) -> int:
        failures_here = 0
        position = checkpoint_position(self.checkpoint)
        backoff = self.settings.first_backoff_sec
        while True:
            code, last_line = self._run_once()
            if self._stopping or code == 0:
                return code
            if code == USAGE_EXIT:
                self.say("the app refused its options (exit 2); a restart cannot fix that")
                return code
            now = checkpoint_position(self.checkpoint)
            if now != position:
                failures_here, backoff, position = 0, self.settings.first_backoff_sec, now
            if not _retriable(last_line):
                failures_here += 1
            if failures_here >= self.settings.give_up_after:
                self.say(self._give_up_line(failures_here, code, last_line))
                return code
            self.say(
                RESTART.text(
                    RestartLine(self.restarts + 1, backoff, code, _without_prefix(last_line))
                )
            )
            if self._wait(backoff):
                return code
            backoff = min(backoff * 2, self.settings.max_backoff_sec)
            self.restarts += 1

    def _give_up_line(self, failures: int, code: int, last_line: str | None) -> str:
        committed, pending = checkpoint_position(self.checkpoint)
        where = (
            f"batch {pending} pending"
            if pending is not None
            else f"last committed batch {committed}"
        )
        return GIVE_UP.text(GiveUpLine(failures, where, code, _without_prefix(last_line)))

    def _run_once(self) -> tuple[int, str | None]:
        """Run the app once, passing its output through; its exit code and last stderr line."""
        last: deque[str] = deque(maxlen=1)
        self._child = subprocess.Popen(
            self.command, stderr=subprocess.PIPE, text=True, errors="replace"
        )
        assert self._child.stderr is not None
        for line in self._child.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            if line.strip():
                last.append(line.strip())
        code = self._child.wait()
        # A child killed by signal N reports -N; pass it on the way shells do, as 128 + N.
        return (128 - code if code < 0 else code), last[0] if last else None

    def _wait(self, seconds: float) -> bool:
        """Sleep before a restart; True when a stop arrived meanwhile."""
        deadline = time.monotonic() + seconds
        while not self._stopping and time.monotonic() < deadline:
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        return self._stopping

    def _stop(self, number: int, _frame: FrameType | None) -> None:
        # The app stops itself cleanly on SIGTERM (between batches); no restart follows.
        self._stopping = True
        if self._child is not None and self._child.poll() is None:
            self._child.send_signal(signal.SIGTERM)
