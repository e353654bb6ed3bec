"""The demo end to end: both real apps, keys pressed, the screen read back, nothing left behind.

The live screen is driven in a real terminal (tmux: keys sent with `send-keys`, the screen read
with `capture-pane`); the plain mode through pipes. Every app the demo starts carries the
demo's mark in its environment (inherited by the JVM too), which is how the tests check that
quitting leaves no process behind.
"""

from __future__ import annotations

import os
import queue
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from launch.ports import port_is_free
from scenarios.demo.session import DEMO_MARK_VARIABLE
from tests.tmux_screen import TmuxScreen

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[3]
# The demo as users start it.
LAUNCH = ["-m", "scenarios", "demo"]
SPARK_START_SEC = (
    600.0  # a cold PySpark start took 7 minutes on a machine busy with other Spark tests
)
STEP_SEC = 120.0


def _marked_processes(log_dir: Path) -> list[int]:
    """Pids of live processes whose environment carries this demo's mark."""
    mark = f"{DEMO_MARK_VARIABLE}={log_dir.resolve()}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone meanwhile, or a zombie
        if mark in environ.split(b"\0"):
            pids.append(int(entry.name))
    return pids


def _kill_leftovers(log_dir: Path) -> list[int]:
    leftovers = _marked_processes(log_dir)
    for pid in leftovers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return leftovers


def _started_as_a_background_job() -> None:
    """In the demo's process before it starts: SIGINT ignored, as a script's `… &` or `nohup`
    leaves it (Ctrl-C must quit the demo all the same), and no core file from a SIGABRT
    (quit_within)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _signal_masks(pid: int) -> str:
    """SigIgn and SigCgt of a process (bit 2, 0x2, is SIGINT), as /proc shows them."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError as error:
        return f"no /proc status ({error})"
    return ", ".join(
        line.replace("\t", " ")
        for line in status.splitlines()
        if line.startswith(("SigIgn", "SigCgt", "State"))
    )


def _poll(check: Callable[[], object], timeout: float, describe: Callable[[], str]) -> object:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"not seen within {timeout:.0f} s; last seen:\n{describe()}")
        time.sleep(0.5)


def _demo_args(run_dir: Path, port: int) -> list[str]:
    # The demo's own retention (one hour), so neither a slow Spark start nor a pause between
    # keys finds offsets aged out; `t` switches to the seed's 15 s.
    return ["--port", str(port), "--run-dir", str(run_dir), "--fresh"]


def _no_leftovers(log_dir: Path) -> None:
    _poll(
        lambda: not _marked_processes(log_dir),
        15,
        lambda: f"processes left behind: {_marked_processes(log_dir)}",
    )


class Tmux(TmuxScreen):
    """The demo's live screen in tmux: it redraws in place, so waits read the screen as it is
    now, not the pane's history (an old frame would match)."""

    def wait(self, pattern: str, timeout: float = STEP_SEC) -> re.Match[str]:
        return _poll(lambda: re.search(pattern, self.screen()), timeout, self.screen)  # type: ignore[return-value]

    def wait_count_at_least(self, count: int, starts: int, timeout: float = STEP_SEC) -> int:
        pattern = rf"last batch \d+\s+count (\d+)\s+starts {starts}\b"

        def enough() -> int | None:
            match = re.search(pattern, self.screen())
            return int(match[1]) if match and int(match[1]) >= count else None

        return _poll(enough, timeout, self.screen)  # type: ignore[return-value]


def _fresh_clones_demo_in_tmux(name: str, run_dir: Path, port: int) -> Tmux:
    """The demo in a tmux pane as a fresh clone starts it: no class archive yet (an empty
    `run_dir/class-cache`). The pane stays open after the demo exits, with its exit code."""
    args = [*_demo_args(run_dir, port), "--class-cache-dir", str(run_dir / "class-cache")]
    command = " ".join(shlex.quote(part) for part in [sys.executable, *LAUNCH, *args])
    tmux = Tmux(f"{name}-{os.getpid()}")
    # COLUMNS/LINES inherited from the test run would pin rich to 80x24 inside a 160x50 pane.
    tmux.start(
        f"cd {shlex.quote(str(ROOT))} && env -u COLUMNS -u LINES {command}; "
        f"echo DEMO-EXITED $?; sleep 120"
    )
    return tmux


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_live_demo_in_a_terminal_crash_restart_kill_reset_and_quit(
    tmp_path: Path, free_port: int
) -> None:
    """A newcomer's first minutes (issues 37 and 51): a clone whose class archive is not written
    yet, Enter while the archive is still being saved, `r` at once. The demo starts on an hour's
    retention, as seed 001's first experiment ran, so neither a loaded machine nor a room's
    discussion between Enter and `r` turns the restart into KAFKA_DATA_LOSS; `t` then switches
    to the seed's 15 s for the retention race, and back."""
    log_dir = tmp_path / "log"
    tmux = _fresh_clones_demo_in_tmux("demo-test", tmp_path, free_port)
    try:
        tmux.wait(r"Spark app up \(pid \d+\)", SPARK_START_SEC)
        count = tmux.wait_count_at_least(3, starts=1, timeout=SPARK_START_SEC)
        screen = tmux.screen()
        assert "retention 1 h" in screen and "the app may stay down while you talk" in screen
        assert "retention to 15 s (the race)" in screen

        tmux.keys("Enter")  # a negative key: the app halts itself when it reads it
        tmux.wait(r"down: crashed itself on a negative key")
        negative = int(tmux.wait(r"negative keys asked 1, sent 1 \(last -(\d+)\)")[1])

        tmux.keys("r")  # at once, as a newcomer does: crash-once processes the key and goes on
        tmux.wait_count_at_least(max(count, negative) + 2, starts=2, timeout=SPARK_START_SEC)
        # After the crash and the restart from the checkpoint: nothing missed, nothing twice,
        # and no data loss however long the restart took.
        tmux.wait(r"OK  every message exactly once")
        assert "DATA_LOSS" not in tmux.screen()

        tmux.keys("t")  # the retention race
        tmux.wait(r"retention of Experience set to 15 s")
        assert "retention to 1 h" in tmux.screen()
        tmux.keys("d")
        tmux.wait(r"d: the Spark app is up; stop it first")
        tmux.keys("t")
        tmux.wait(r"retention of Experience set to 1 h")
        assert "retention 1 h" in tmux.screen()

        tmux.keys("k")
        tmux.wait(r"down: killed \(kill -9\)")
        tmux.keys("d")
        tmux.wait(r"d: deleted ")

        tmux.keys("q")
        tmux.wait(r"DEMO-EXITED 0", 60)
        _no_leftovers(log_dir)
    finally:
        tmux.close()
        leftovers = _kill_leftovers(log_dir)
        shutil.rmtree(tmp_path / "class-cache", ignore_errors=True)  # an archive is ~180 MB
    assert not leftovers


def _read_lines(stream, lines: queue.Queue[str]) -> None:  # type: ignore[no-untyped-def]
    for line in stream:
        lines.put(line.rstrip("\n"))


class PlainDemo:
    """The demo in its line mode, fed and read through pipes."""

    def __init__(self, args: list[str]) -> None:
        # PYTHONFAULTHANDLER: a SIGABRT makes it print every thread's stack (see quit_within).
        self.process = subprocess.Popen(
            [sys.executable, *LAUNCH, *args],
            cwd=ROOT,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
            preexec_fn=_started_as_a_background_job,
        )
        self.output: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=_read_lines, args=(self.process.stdout, self._lines), daemon=True
        ).start()

    def quit_within(self, timeout: float) -> int:
        """The exit code; if it has not quit by then, a failure that says what it was doing:
        its signal masks (SIGINT ignored or caught), its output, its threads' stacks. That is
        how a fresh-clone CI run started in the background showed the demo ignoring Ctrl-C
        (27 Nov 2026): SIGINT came in ignored and Python kept it so."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            masks = _signal_masks(self.process.pid)
            self.process.send_signal(signal.SIGABRT)  # its threads' stacks, then it ends
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            time.sleep(0.5)  # the reader thread's last lines
            while not self._lines.empty():
                self.output.append(self._lines.get())
            pytest.fail(
                f"the demo did not quit within {timeout:.0f} s of Ctrl-C; {masks}; "
                f"last output, then its threads' stacks:\n" + "\n".join(self.output[-80:])
            )

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait(
        self,
        pattern: str,
        timeout: float = STEP_SEC,
        accept: Callable[[re.Match[str]], bool] = bool,
    ) -> re.Match[str]:
        def seen() -> re.Match[str] | None:
            while not self._lines.empty():
                line = self._lines.get()
                self.output.append(line)
                match = re.search(pattern, line)
                if match and accept(match):
                    return match
            return None

        return _poll(seen, timeout, lambda: "\n".join(self.output[-30:]))  # type: ignore[return-value]


@pytest.mark.nightly
def test_plain_demo_through_pipes_kill_reset_crash_and_ctrl_c(
    tmp_path: Path, free_port: int
) -> None:
    # Nightly since the live page's browser test (29 Nov): that test runs the demo through
    # pipes too (Enter, r, Ctrl-C) and the tmux test presses k and d; see docs/testing.md.
    log_dir = tmp_path / "log"
    demo = PlainDemo(_demo_args(tmp_path, free_port))
    try:
        demo.wait(
            r"\[status\] .*spark up .*batch \d+ count (\d+)",
            SPARK_START_SEC,
            accept=lambda match: int(match[1]) >= 3,
        )
        demo.send("k")
        demo.wait(r"\[demo\] Spark app down: killed \(kill -9\) \(exit code -9\)")
        demo.send("d")
        demo.wait(r"\[demo\] d: deleted ")
        demo.send("r")
        demo.wait(r"\[demo\] Spark app started .*start #2")
        demo.send("")
        demo.wait(
            r"\[demo\] Spark app down: crashed itself on a negative key \(exit code 255\)",
            SPARK_START_SEC,
        )
        demo.process.send_signal(signal.SIGINT)  # Ctrl-C quits like q, through the same cleanup
        assert demo.quit_within(60) == 0
        demo.wait(r"\[demo\] final: ")
        _no_leftovers(log_dir)
    finally:
        if demo.process.poll() is None:
            demo.process.kill()
        leftovers = _kill_leftovers(log_dir)
    assert not leftovers


@pytest.mark.nightly
@pytest.mark.parametrize("store", ["hdfs", "s3"])
def test_plain_demo_with_the_checkpoint_on_a_store(
    tmp_path: Path, free_port: int, store: str
) -> None:
    # Nightly: a store start and two Spark starts on it (the s3 jars are 690 MB on first use).
    log_dir = tmp_path / "log"
    demo = PlainDemo([*_demo_args(tmp_path, free_port), "--checkpoint-store", store])
    prefix = "hdfs://" if store == "hdfs" else "s3a://"
    try:
        demo.wait(rf"\[demo\] {store} checkpoint store starting")
        demo.wait(
            r"\[status\] .*spark up .*batch \d+ count (\d+)",
            SPARK_START_SEC,
            accept=lambda match: int(match[1]) >= 3,
        )
        assert (log_dir / "demo-spark.out").read_text().count(f"checkpoints in {prefix}") == 1
        demo.send("k")
        demo.wait(r"\[demo\] Spark app down: killed \(kill -9\)")
        demo.wait(r"\[status\] .*checkpoint .*batch \d+")  # read from the store
        demo.send("d")
        demo.wait(rf"\[demo\] d: deleted {prefix}")
        # A new query on the store after the hard reset; its start also removes the killed
        # app's temporary folder, which nothing else would (no kill leaves one in /tmp).
        demo.send("r")
        demo.wait(r"\[demo\] Spark app started .*start #2")
        demo.wait(r"\[status\] .*spark up .*count (\d+)", SPARK_START_SEC)
        demo.process.send_signal(signal.SIGINT)
        demo.wait(rf"\[demo\] output log .*checkpoint {prefix}\S+ \(gone with the store\)")
        assert demo.process.wait(timeout=60) == 0
        _no_leftovers(log_dir)
        assert not (log_dir / "store-data").exists() and not (log_dir / "store-view").exists()
        assert not (tmp_path / "checkpoints").exists() or not any(
            (tmp_path / "checkpoints").iterdir()
        )
    finally:
        if demo.process.poll() is None:
            demo.process.kill()
        leftovers = _kill_leftovers(log_dir)
    assert not leftovers


# The demo as the README starts it (through uv, which stands between the terminal and the demo:
# the terminal's reads and writes fail before uv's copy of SIGHUP arrives), and directly.
LAUNCHERS = {"uv run": ["uv", "run", "python"], "python": [sys.executable]}


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("launcher", list(LAUNCHERS))
def test_closing_the_demos_terminal_leaves_no_process(
    tmp_path: Path, free_port: int, launcher: str
) -> None:
    """A closed window or a dropped SSH session is SIGHUP: both apps must go, JVM included,
    within 15 s."""
    if shutil.which(LAUNCHERS[launcher][0]) is None:
        pytest.skip(f"{LAUNCHERS[launcher][0]} is not installed")
    log_dir = tmp_path / "log"
    command = " ".join(
        shlex.quote(part)
        for part in [*LAUNCHERS[launcher], *LAUNCH, *_demo_args(tmp_path, free_port)]
    )
    tmux = Tmux(f"demo-hup-{os.getpid()}")
    tmux.start(f"cd {shlex.quote(str(ROOT))} && env -u COLUMNS -u LINES {command}")
    try:
        tmux.wait(r"Spark app up \(pid \d+\)", SPARK_START_SEC)
        tmux.wait_count_at_least(5, starts=1, timeout=SPARK_START_SEC)
        assert len(_marked_processes(log_dir)) >= 3  # producer, Spark driver, its JVM
        tmux.close()  # the terminal goes away: the kernel sends SIGHUP
        _no_leftovers(log_dir)
        assert port_is_free(free_port)
    finally:
        tmux.close()
        leftovers = _kill_leftovers(log_dir)
    assert not leftovers


def _command_lines(log_dir: Path) -> list[str]:
    """The command lines of this demo's live processes (the JVMs' options among them)."""
    lines = []
    for pid in _marked_processes(log_dir):
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue  # gone meanwhile
    return lines


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_fresh_clones_first_crash_and_restart_maps_the_class_archive_the_first_run_saved(
    tmp_path: Path, free_port: int
) -> None:
    """A fresh clone: no class archive yet. The first run saves it in the background after its
    first batch, the crash (Enter) and `r` bring the app back on it from the checkpoint, and
    every message is counted once. (Before, the archive was written by a stop, so the first
    restart started without it; under the seed's 15 s retention it came back too late. The
    retention here is the demo's hour, so that a busy CI machine cannot fail the test; the
    timing under 15 s is measured by hand, see docs/spark-app.md.)"""
    log_dir, cache = tmp_path / "log", tmp_path / "class-cache"
    tmux = _fresh_clones_demo_in_tmux("demo-first", tmp_path, free_port)
    try:
        count = tmux.wait_count_at_least(1, starts=1, timeout=SPARK_START_SEC)
        archive = _poll(
            lambda: next(cache.glob("*.jsa"), None),
            SPARK_START_SEC,
            lambda: f"no class archive in {cache}: {sorted(cache.glob('*'))}",
        )
        tmux.wait(r"class archive: saved")

        tmux.keys("Enter")
        tmux.wait(r"down: crashed itself on a negative key")
        negative = int(tmux.wait(r"negative keys asked 1, sent 1 \(last -(\d+)\)")[1])
        restarted_at = time.monotonic()
        tmux.keys("r")
        tmux.wait_count_at_least(max(count, negative) + 1, starts=2, timeout=SPARK_START_SEC)
        came_back_sec = time.monotonic() - restarted_at
        assert any(f"-XX:SharedArchiveFile={archive}" in line for line in _command_lines(log_dir))
        tmux.wait(r"OK  every message exactly once")
        print(f"the first restart counted again {came_back_sec:.1f} s after r")

        tmux.keys("q")
        tmux.wait(r"DEMO-EXITED 0", 60)
    finally:
        tmux.close()
        leftovers = _kill_leftovers(log_dir)
    assert not leftovers
