"""The live page's states in a real browser, as a person in the room sees them.

The demo runs with `--web` through pipes (its plain mode: Enter and `r` are lines), a guided
scenario with `--web` on a terminal of its own (a pty: `--guided` waits on a terminal only).
Headless Chromium opens the page, and each state is waited for in the page as the browser shows
it (the DOM after the page's script swapped in what the server sent), never in the server's
data: batches arriving; the app crashed with a planned batch and no commit; the restart that
replayed that batch with the verdict still OK; a step's question, then its answer; an
exercise's task (`exercise fix-forward --web`), then the attendee's fixed job past the poison
pill. Each state
is screenshotted at 1280x720 for docs/web.md; the browser tests (tests/scenarios/demo/
test_demo_web_browser_e2e.py, tests/scenarios/web/test_run_page_browser_e2e.py) wait for the
same states.

Needs Playwright (the dev group) and Debian's Chromium (/usr/bin/chromium), as the report's
browser tests do.

Usage:
    uv run python -m scenarios.web.tour docs/img/web   # the demo's three, a step's two, an exercise's two
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import queue
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image

from launch.group import ProcessGroup
from launch.hangup import die_with_parent
from launch.ports import free_port
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.exercises.workspace import EXERCISE_HOME, Workspace

__all__ = [
    "ARRIVING",
    "HANDED_OVER",
    "JOB_PAST",
    "CHROMIUM",
    "CRASHED",
    "REPLAYED",
    "SCREEN",
    "Command",
    "browser_page",
    "crashed_batch",
    "demo_args",
    "main",
    "main_parser",
    "room_tour",
    "screenshot",
    "wait_for",
]

CHROMIUM = Path("/usr/bin/chromium")
# As the report's browser tests: no sandbox as root, no GPU, nothing fetched from outside.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREEN = {"width": 1280, "height": 720}  # the projector's screen the page is made for
SPARK_START_SEC = 600.0  # a cold PySpark start on a loaded machine
STEP_SEC = 120.0
STOP_SEC = 120.0  # a run's cleanup after SIGTERM, as tests/stopped_gently.py allows
_URL = re.compile(r"http://127\.0\.0\.1:\d+/(?:#token=[\w-]+)?")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")

# The demo's states, as the page shows them: JavaScript over the DOM, true once the state is on.
# At least three committed batches while the app runs: batches arriving.
ARRIVING = """() => document.querySelector('#app')?.dataset.status === 'running'
  && document.querySelectorAll('#checkpoint li.batch[data-committed="yes"]').length >= 3"""
# The app crashed, and the newest batch is planned (offsets/N) with no commits/N.
CRASHED = """() => document.querySelector('#app')?.dataset.status === 'crashed'
  && [...document.querySelectorAll('#checkpoint li.batch')].pop()?.dataset.committed === 'no'"""
# The batch the crash left planned is committed by the restart, and the output is still OK.
REPLAYED = """(batch) => {
  const b = document.querySelector(`#checkpoint li.batch[data-batch="${batch}"]`);
  return b !== null && b.classList.contains('replayed') && b.dataset.committed === 'yes'
    && document.querySelector('#verdict')?.dataset.ok === 'ok'
    && document.querySelector('#app')?.dataset.status === 'running';
}"""
# A guided step waits with its button (its question on the page).
ASKED = """() => document.querySelector('#step')?.dataset.phase === 'asked'
  && document.querySelector('#run-step') !== null && !document.querySelector('#run-step').disabled"""
# The step after `number` is asked, with `number`'s answer above its question.
ANSWERED = """(number) => document.querySelector('#answer-before')?.dataset.number === String(number)
  || (document.querySelector('#step')?.dataset.phase === 'answered'
      && document.querySelector('#step')?.dataset.number === String(number))"""

# An exercise's setup is handed over: its task is on the page.
HANDED_OVER = """() => document.querySelectorAll('#task li').length > 0"""
# The attendee's job runs on the folder, and has committed batch `batch` or a later one.
JOB_PAST = """(batch) => document.querySelector('#app')?.dataset.status === 'running'
  && [...document.querySelectorAll('#checkpoint li.batch[data-committed="yes"]')]
       .some((b) => Number(b.dataset.batch) >= batch)"""
ROOM_EXERCISE = "fix-forward"
ROOM_FIX = ["--on-negative-key", "ignore"]  # fix-forward's fixed release


class Command:
    """A command of the project, its output read line by line on a thread: through pipes, or on
    a terminal of its own (a pty of 160x50) when `terminal` (rich and `--guided` want one)."""

    def __init__(self, args: list[str], terminal: bool = False, cwd: Path | None = None) -> None:
        self.output: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        self._terminal: int | None = None
        # `cwd`: where it is started (an exercise's folder is relative to it).
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if cwd is not None:
            env["PYTHONPATH"] = str(PROJECT_ROOT)  # the project, found from where it is started
        cwd = cwd or PROJECT_ROOT
        if terminal:
            leader, follower = pty.openpty()
            fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
            self.process = subprocess.Popen(
                [sys.executable, *args],
                cwd=cwd,
                stdin=follower,
                stdout=follower,
                stderr=follower,
                env={**env, "COLUMNS": "160", "LINES": "50"},
                start_new_session=True,
                preexec_fn=die_with_parent,  # a kill of ours takes the demo too
            )
            os.close(follower)
            self._terminal = leader
            reader = self._read_terminal
        else:
            self.process = subprocess.Popen(
                [sys.executable, *args],
                cwd=cwd,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # our SIGINT is the only one it gets
                preexec_fn=die_with_parent,  # and a kill of ours takes it too
            )
            reader = self._read_pipe
        threading.Thread(target=reader, daemon=True, name="command-output").start()

    def _read_pipe(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))

    def _read_terminal(self) -> None:
        assert self._terminal is not None
        pending = ""
        while True:
            try:
                data = os.read(self._terminal, 4096)
            except OSError:  # EIO: the command and every child closed the terminal
                break
            if not data:
                break
            pending += _ANSI.sub("", data.decode("utf-8", errors="replace"))
            *lines, pending = pending.split("\n")
            for line in lines:
                self._lines.put(line)
        if pending:
            self._lines.put(pending)

    def send(self, line: str) -> None:
        """A line typed: Enter alone when `line` is empty."""
        if self._terminal is not None:
            os.write(self._terminal, (line + "\r").encode())
            return
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait(self, pattern: str, timeout: float = STEP_SEC) -> re.Match[str]:
        """The first new line matching `pattern`; TimeoutError with the last lines if none."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and self._lines.empty():
                    break
                continue
            self.output.append(line)
            if match := re.search(pattern, line):
                return match
        last = "\n".join(self.output[-30:])
        raise TimeoutError(f"{pattern!r} not printed within {timeout:.0f} s; last lines:\n{last}")

    def url(self, label: str) -> str:
        """The address printed on the line that starts with `label`."""
        match = _URL.search(self.wait(re.escape(label) + r".*http://").string)
        assert match is not None
        return match[0]

    def stop(self, how: signal.Signals = signal.SIGINT) -> int:
        """Ctrl-C (or SIGTERM) as a person stops it, a kill only past STOP_SEC; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(how)
            try:
                self.process.wait(timeout=STOP_SEC)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self._terminal is not None:
            time.sleep(0.3)  # the reader's last lines
            os.close(self._terminal)
            self._terminal = None
        return self.process.returncode


@contextmanager
def browser_page(profile: Path) -> Iterator[Any]:
    """A tab of a headless Chromium at 1280x720 with a fresh profile in `profile`."""
    if not CHROMIUM.is_file():
        raise FileNotFoundError(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright  # the dev group's: only here

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=SCREEN,
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def wait_for(page: Any, state: str, timeout: float = STEP_SEC, arg: object = None) -> None:
    """Until `state` (one of the predicates above) holds in the page, polled every 100 ms."""
    page.wait_for_function(state, arg=arg, timeout=timeout * 1000, polling=100)


def crashed_batch(page: Any) -> int:
    """The planned batch without its commit that the crash left: the one a restart replays."""
    return int(page.locator("#checkpoint li.batch").last.get_attribute("data-batch"))


def screenshot(page: Any, path: Path) -> Path:
    """The page as it stands, in a PNG of 256 colours: a tenth of the size, text as sharp."""
    page.screenshot(path=str(path))
    with Image.open(path) as shot:
        shot.convert("RGB").quantize(colors=256).save(path, optimize=True)
    print(f"screenshot: {path} ({path.stat().st_size // 1024} KB)", flush=True)
    return path


def demo_args(work: Path, port: int) -> list[str]:
    """The demo with its page, its Kafka on `port`, its folders in `work`."""
    return [
        "-m",
        "scenarios",
        "demo",
        "--web",
        "--port",
        str(port),
        "--run-dir",
        str(work),
        "--fresh",
    ]


def demo_tour(page: Any, work: Path, out: Path) -> None:
    """The demo with --web: batches arriving, the crash (Enter), the restart (`r`)."""
    demo = Command(demo_args(work, free_port()))
    try:
        page.goto(demo.url("[demo] live page:"))
        wait_for(page, ARRIVING, SPARK_START_SEC)
        screenshot(page, out / "demo-arriving.png")
        demo.send("")  # Enter: a negative key, on which the app crashes
        wait_for(page, CRASHED)
        batch = crashed_batch(page)
        screenshot(page, out / "demo-crashed.png")
        demo.send("r")
        wait_for(page, REPLAYED, SPARK_START_SEC, arg=batch)
        screenshot(page, out / "demo-replayed.png")
    finally:
        demo.stop()


def step_tour(page: Any, work: Path, out: Path) -> None:
    """A guided checkpoint-reset with --web: step 1's question, run from the page, its answer."""
    args = ["-m", "scenarios", "run", "checkpoint-reset", "--fast", "--guided", "--web"]
    run = Command([*args, "--report", str(work)], terminal=True)
    try:
        page.goto(run.url("live page that runs the steps"))
        wait_for(page, ASKED, SPARK_START_SEC)
        screenshot(page, out / "step-question.png")
        page.locator("#run-step").click()
        wait_for(page, ANSWERED, SPARK_START_SEC, arg=1)
        screenshot(page, out / "step-answer.png")
    finally:
        run.stop(signal.SIGTERM)


def room_tour(page: Any, work: Path, out: Path | None = None) -> int:
    """`exercise fix-forward --web` started in `work`: the task handed over (the poison pill's
    batch planned, not committed), then the fixed job, as the attendee starts it, committing
    that batch; the first terminal's exit code after Ctrl-C. Screenshots into `out` if given."""
    room = Command(["-m", "scenarios", "exercise", ROOM_EXERCISE, "--web"], cwd=work)
    try:
        page.goto(room.url("live page:"))
        wait_for(page, HANDED_OVER, SPARK_START_SEC)
        stuck = crashed_batch(page)
        if out is not None:
            screenshot(page, out / "exercise-task.png")
        ws = Workspace(work / EXERCISE_HOME / ROOM_EXERCISE)
        env = {"PYTHONPATH": str(PROJECT_ROOT)}
        with ProcessGroup(work / "attendee", cwd=work, env=env) as group:
            argv = [sys.executable, "-m", "spark_app", *ws.load().app_args, *ROOM_FIX]
            group.start("job", argv)
            wait_for(page, JOB_PAST, SPARK_START_SEC, arg=stuck)
            if out is not None:
                screenshot(page, out / "exercise-job.png")
    finally:
        code = room.stop()
    return code


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios.web.tour",
        description="the live page's states in headless Chromium at 1280x720, as PNGs",
    )
    parser.add_argument("out", type=Path, help="folder for the screenshots (docs/img/web)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="live-page-tour-"))
    try:
        with browser_page(work / "chromium-profile") as page:
            demo_tour(page, work / "demo", args.out)
            step_tour(page, work / "run", args.out)
            (work / "room").mkdir()
            room_tour(page, work / "room", args.out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
