"""An earlier run's processes still in the way, found and named in one line; the demo refuses to
start beside them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from launch.leftovers import describe_leftovers, find_leftovers
from launch.ports import port_is_free

ROOT = Path(__file__).resolve().parents[2]

LISTENER = textwrap.dedent("""
    import socket, sys, time
    server = socket.socket()
    server.bind(("127.0.0.1", int(sys.argv[1])))
    server.listen()
    print("listening", flush=True)
    time.sleep(120)
""")


@pytest.fixture
def port_holder(free_port: int):
    process = subprocess.Popen(
        [sys.executable, "-c", LISTENER, str(free_port)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "listening"
    yield process
    process.kill()
    process.wait()


def test_the_process_holding_a_port_is_named(
    port_holder: subprocess.Popen[str], free_port: int
) -> None:
    assert not port_is_free(free_port)
    [found] = find_leftovers([], [free_port])
    assert found.pid == port_holder.pid and found.reason == f"holds port {free_port}"
    line = describe_leftovers([found])
    assert f"pid {port_holder.pid}" in line and f"kill {port_holder.pid}" in line


def test_an_app_writing_to_our_folders_is_named(tmp_path: Path) -> None:
    # A stand-in with the app's command line shape: `python -m spark_app --log-dir <dir>`.
    (tmp_path / "spark_app").mkdir()
    (tmp_path / "spark_app" / "__main__.py").write_text("import time; time.sleep(120)")
    app = subprocess.Popen([sys.executable, "-m", "spark_app", "--log-dir", "log"], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 10
        found = []
        while not found and time.monotonic() < deadline:
            found = find_leftovers([tmp_path / "log"], [])
        assert [(f.pid, f.reason) for f in found] == [(app.pid, f"uses {tmp_path / 'log'}")]
        assert find_leftovers([tmp_path / "other"], []) == []
    finally:
        app.kill()
        app.wait()


def test_the_demo_refuses_to_start_beside_them(
    port_holder: subprocess.Popen[str], free_port: int, tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scenarios",
            "demo",
            "--port",
            str(free_port),
            "--run-dir",
            str(tmp_path),
            "--fresh",
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"demo: a previous run is still going: pid {port_holder.pid}")
    assert f"holds port {free_port}" in line and "then start again" in line
    assert not (tmp_path / "log" / "demo-producer.out").exists()  # nothing was started


def test_without_proc_as_on_macos_nothing_is_found_and_nothing_fails(
    monkeypatch, tmp_path: Path
) -> None:
    import launch.leftovers as leftovers

    def no_proc(path: str) -> list[str]:
        raise FileNotFoundError(path)

    monkeypatch.setattr(leftovers.os, "listdir", no_proc)
    assert find_leftovers([tmp_path], []) == []
