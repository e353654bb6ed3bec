"""On a platform without /proc (macOS) or termios (Windows' own Python), the demo and `run` stop
with one line naming what is missing and where to run instead, before anything starts: the
platform is faked here (its name as the guard reads it, /proc pointed at a folder that is not
there, termios made unimportable)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from launch import platform_needs
from launch.platform_needs import RUN_NEEDS, PlatformMissing, demo_needs, lacking, require
from scenarios.cli import run_cli
from scenarios.demo import cli as demo_cli
from scenarios.engine.settings import PROJECT_ROOT


@pytest.fixture
def macos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as on macOS: the platform is darwin, and there is no /proc. (sys.platform
    itself stays: pandas and sysconfig read it as they import.)"""
    monkeypatch.setattr(platform_needs, "PLATFORM", "darwin")
    monkeypatch.setattr(platform_needs, "PROC", tmp_path / "no-proc")


@pytest.fixture
def no_termios(monkeypatch: pytest.MonkeyPatch) -> None:
    """This Python as Windows' own: `import termios` fails."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "termios" else real(name, *a)
    )
    monkeypatch.setitem(sys.modules, "termios", None)  # None in sys.modules: ImportError


def test_linux_has_what_both_need() -> None:
    assert lacking(RUN_NEEDS) == [] and lacking(demo_needs(interactive=True)) == []


def test_run_on_macos_stops_in_one_line_before_anything_starts(
    macos: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import scenarios.cli

    monkeypatch.setattr(scenarios.cli, "run_scenarios", lambda *a, **k: pytest.fail("started"))
    assert run_cli(["run", "checkpoint-reset", "--fast"]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("scenarios: python -m scenarios run needs /proc (Linux's process table")
    assert "this platform (darwin) does not have: run it on Linux, or in WSL2" in line
    assert "Traceback" not in captured.out + captured.err


def test_the_demo_on_macos_stops_in_one_line_before_anything_starts(
    macos: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(demo_cli, "DemoSession", lambda *a, **k: pytest.fail("started"))
    assert demo_cli.run_demo(["--port", "1"]) == 1
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("demo: python -m scenarios demo needs /proc (Linux's process table")
    assert "(darwin) does not have" in line and "README.md, Quick start" in line
    assert captured.out == ""


def test_without_termios_the_live_screen_names_it_and_the_line_mode_does_not_need_it(
    no_termios: None,
) -> None:
    with pytest.raises(PlatformMissing) as refused:
        require("python -m scenarios demo", demo_needs(interactive=True))
    assert "needs termios (a Unix terminal's modes" in str(refused.value)
    assert "/proc" not in str(refused.value)
    require("python -m scenarios demo", demo_needs(interactive=False))  # the plain line mode


def test_the_demos_modules_import_without_termios() -> None:
    """The import itself must not be the traceback: termios is imported where it is used. (In a
    child process: reloading the demo's modules here would change them under other tests.)"""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['termios'] = None\n"
            "import scenarios.demo.keys, scenarios.demo.cli as cli\n"
            "print(cli._terminal_errors())",
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(<class 'OSError'>,)"
