"""The supervisor around real child processes: restarts with backoff, gives up on a crash loop,
rides out an unreachable Kafka, and stops with the app on SIGTERM.

The child is a small Python program that plays the app: each run takes its next step from a
plan (exit code, last stderr line, whether it committed a batch to the checkpoint first).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from spark_app.supervisor import (
    GIVE_UP,
    RESTART,
    SAY_PREFIX,
    GiveUpLine,
    RestartLine,
    Supervisor,
    SupervisorSettings,
    child_argv,
    parse_supervisor_line,
    supervisor_lines,
)

FAST = SupervisorSettings(give_up_after=3, first_backoff_sec=0.01, max_backoff_sec=0.05)

PLAYER = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    plan_file, runs_file, checkpoint = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    run = int(runs_file.read_text()) if runs_file.exists() else 0
    runs_file.write_text(str(run + 1))
    step = json.loads(plan_file.read_text())[run]
    if step.get("commit"):
        (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
        (checkpoint / "commits" / str(run)).write_text("v1\\n{}")
        (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
        (checkpoint / "offsets" / str(run)).write_text('v1\\n{}\\n{"Experience":{"0":%d}}' % run)
    time.sleep(step.get("sleep", 0))
    if step.get("line"):
        print(step["line"], file=sys.stderr)
    sys.exit(step["exit"])
""")


class Player:
    def __init__(self, tmp_path: Path, plan: list[dict[str, object]]) -> None:
        self.root = tmp_path
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        (tmp_path / "player.py").write_text(PLAYER)
        self.checkpoint = tmp_path / "checkpoints"
        self.lines: list[str] = []

    @property
    def command(self) -> list[str]:
        return [
            sys.executable,
            str(self.root / "player.py"),
            str(self.root / "plan.json"),
            str(self.root / "runs"),
            str(self.checkpoint),
        ]

    @property
    def runs(self) -> int:
        return int((self.root / "runs").read_text())

    def supervisor(self) -> Supervisor:
        return Supervisor(self.command, self.checkpoint, FAST, say=self.lines.append)


def test_a_clean_exit_is_not_restarted(tmp_path: Path) -> None:
    player = Player(tmp_path, [{"exit": 0}])
    assert player.supervisor().run() == 0
    assert player.runs == 1 and player.lines == []


def test_failures_with_progress_are_restarted_with_growing_backoff(tmp_path: Path) -> None:
    crash = {"exit": 255, "commit": True, "line": "(negative key)"}
    player = Player(tmp_path, [crash, crash, crash, crash, {"exit": 0}])
    assert player.supervisor().run() == 0
    assert player.runs == 5
    assert [line.split(";")[0] for line in player.lines] == [
        f"restart {n} in 0.01 s" for n in range(1, 5)
    ]
    assert player.lines[0].endswith("; the app exited with 255: (negative key)")


def test_a_crash_loop_at_the_same_position_gives_up(tmp_path: Path) -> None:
    loss = {"exit": 1, "line": "spark_app: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: gone"}
    player = Player(tmp_path, [{"exit": 1, "commit": True}] + [loss] * 5)
    player.checkpoint.mkdir()
    assert player.supervisor().run() == 1
    # The first run committed batch 0 and then failed: the first of three failures at (0, -).
    assert player.runs == 3
    assert player.lines[-1].startswith(
        "giving up: the app failed 3 times in a row without its "
        "checkpoint moving (last committed batch 0)"
    )
    assert "KAFKA_DATA_LOSS" in player.lines[-1]
    assert [line.split(";")[0] for line in player.lines[:-1]] == [
        "restart 1 in 0.01 s",
        "restart 2 in 0.02 s",
    ]


def test_an_unreachable_kafka_is_waited_for_not_given_up_on(tmp_path: Path) -> None:
    down = {"exit": 1, "line": "spark_app: KAFKA_UNREACHABLE: no Kafka broker answers at x:1."}
    player = Player(tmp_path, [down] * 6 + [{"exit": 0}])
    assert player.supervisor().run() == 0
    assert player.runs == 7 and not any("giving up" in line for line in player.lines)
    assert player.lines[-1].startswith("restart 6 in 0.05 s;")  # capped by max_backoff_sec


def test_bad_usage_is_not_restarted(tmp_path: Path) -> None:
    player = Player(tmp_path, [{"exit": 2, "line": "error: argument --sink"}, {"exit": 0}])
    assert player.supervisor().run() == 2
    assert player.runs == 1 and "a restart cannot fix that" in player.lines[-1]


def test_sigterm_stops_the_app_and_the_supervisor(tmp_path: Path) -> None:
    player = Player(tmp_path, [{"exit": 0, "sleep": 30}, {"exit": 0}])
    script = (
        f"import sys; sys.path.insert(0, {str(Path.cwd())!r})\n"
        f"from spark_app.supervisor import Supervisor\n"
        f"sys.exit(Supervisor({player.command!r}, __import__('pathlib').Path('x')).run())"
    )
    supervisor = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 30
    while not (tmp_path / "runs").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    supervisor.send_signal(signal.SIGTERM)
    # The player dies of the forwarded SIGTERM; the supervisor exits as a shell reports that
    # (128 + 15), and starts no other run.
    assert supervisor.wait(timeout=30) == 128 + signal.SIGTERM
    assert player.runs == 1


def test_child_argv_drops_the_supervisor_options() -> None:
    argv = [
        "--supervise",
        "--sink",
        "at-least-once",
        "--give-up-after",
        "5",
        "--max-backoff-sec=9",
        "--trigger-sec",
        "2",
    ]
    assert child_argv(argv) == ["--sink", "at-least-once", "--trigger-sec", "2"]


def test_the_supervisors_lines_read_back_and_a_reworded_one_does_not() -> None:
    restart = RestartLine(3, 0.5, 1, "KAFKA_UNREACHABLE: no Kafka broker answers at x:1.")
    give_up = GiveUpLine(2, "batch 4 pending", 255, "Negative key -7 (value 7): crashing")
    output = (
        f"Count = 3\n{SAY_PREFIX}{RESTART.text(restart)}\n{SAY_PREFIX}{GIVE_UP.text(give_up)}\n"
    )
    assert supervisor_lines(output) == [restart, give_up]
    reworded = f"{SAY_PREFIX}{RESTART.text(restart).replace('restart 3 in', 'restarting 3 after')}"
    assert parse_supervisor_line(reworded) is None
    assert (
        parse_supervisor_line(RESTART.text(restart)) is None
    )  # the app's own line, not the supervisor's


def test_what_the_supervisor_says_is_what_the_scenarios_read(tmp_path: Path) -> None:
    loss = {"exit": 1, "line": "spark_app: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: gone"}
    player = Player(tmp_path, [loss] * 3)
    player.supervisor().run()
    read = [parse_supervisor_line(f"{SAY_PREFIX}{line}") for line in player.lines]
    assert [type(line) for line in read] == [RestartLine, RestartLine, GiveUpLine]
    assert read[-1] == GiveUpLine(
        3, "last committed batch None", 1, "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: gone"
    )
