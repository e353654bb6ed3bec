"""Each scenario, run as a user runs it (`python -m scenarios run NAME --fast --report DIR`), must pass.

These start a broker, the producer and the Spark app several times each: marked e2e, run with
`pytest --slow`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from scenarios.cli import run_cli
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.registry import all_scenarios
from tests.scenarios.more_helpers import passed_report
from tests.tmux_screen import TmuxScreen

# The seed's first, on the default stack (Apache Kafka, Spark's connector), on a terminal as a
# learner runs it; its other two run on all four stacks in test_stacks_e2e.py, and the later
# scenarios have their own e2e tests (through pipes: the plain lines).
NAME = "endless-retention"
# A step asks in a panel before it runs and answers in one after; what happens and what to
# watch are lines without a frame while it runs (fewer rows, so the live lines stay on screen).
_PANEL_LINE = re.compile(r"^│ (Question|Answer|Why|In production): \S")
_RUNNING_LINE = re.compile(r"^(What happens|Watch): \S")


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_scenario_on_a_terminal_tells_its_story_and_passes(tmp_path: Path) -> None:
    """Every step's panel holds its sections on a real terminal (an empty box once hid them
    all), the processes' latest lines show live, the run names its folder, and the verdict is
    what a pipe's run gives."""
    report_dir = tmp_path / "reports"
    command = (
        f"cd {shlex.quote(str(PROJECT_ROOT))} && env -u COLUMNS -u LINES "
        f"{shlex.quote(sys.executable)} -m scenarios run {NAME} --fast --report "
        f"{shlex.quote(str(report_dir))}; echo EXIT=$?; sleep 600"
    )
    with TmuxScreen(f"scenario-{os.getpid()}", width=160, height=50) as tmux:
        tmux.start(command)
        # While a step runs, the app's latest batch line is live under the narration.
        tmux.wait(r"(?m)^  batch \d+: Experience-0 \[", timeout=600)
        code = tmux.wait(r"EXIT=(\d+)", timeout=1200)[1]
        screen = tmux.history()
    assert code == "0", screen[-6000:]
    result = passed_report(NAME, report_dir)
    steps = [e for e in result["narration"] if e["kind"] == "step"]
    titles = re.findall(r"╭─+ (Step \d+: .*?) ─", screen)
    assert len(titles) >= len(steps) > 3, titles
    filled = Counter(
        m[1]
        for line in screen.splitlines()
        if (m := _PANEL_LINE.match(line) or _RUNNING_LINE.match(line))
    )
    for label in ("What happens", "Question", "Answer", "Why", "In production"):
        assert filled[label] >= len(steps) // 2, (label, filled)
    assert f"run folder {report_dir} (kept)" in " ".join(screen.split())
    suite = ET.parse(report_dir / "junit.xml").getroot()
    assert int(suite.get("tests", "0")) == len(result["checks"])


def test_unknown_scenario_is_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "run", "no-such-thing"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no scenario named no-such-thing" in done.stderr


def test_list_names_the_three_seed_scenarios() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "list"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    for name in ("endless-retention", "short-retention", "checkpoint-reset"):
        assert name in done.stdout


def test_list_starts_every_title_in_one_column(capsys: pytest.CaptureFixture[str]) -> None:
    """A trainer scans the titles down one column; the longest name must not push its own out."""
    assert run_cli(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    columns = set()
    for scenario in all_scenarios():
        line = next(line for line in lines if line.startswith(scenario.name + " "))
        columns.add(line.index(scenario.title))
    assert len(columns) == 1, columns


def test_list_says_how_long_a_long_scenario_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """A trainer plans a session with it: the time, not the why (the docs have the why)."""
    assert run_cli(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for scenario in all_scenarios():
        line = next(line for line in lines if line.startswith(scenario.name + " "))
        said = scenario.takes.split(":")[0]
        assert (f"; {said} with --fast)" in line) == bool(scenario.takes), line
    assert any(s.takes for s in all_scenarios())
