"""The Spark session as a resource: what it leaves behind in the temporary folder and in this
process's environment, when it stops and when it fails to start."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from launch.waiting import wait_until
from spark_app.runtime import session
from spark_app.runtime.session import SparkSessionResource, _environment, _temporary_files_in
from spark_app.settings import SparkAppSettings


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's temporary folder (`tempfile`, TMPDIR's role), empty at the start."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


def test_a_session_that_fails_to_start_leaves_no_folder(
    temp_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(settings: SparkAppSettings, *, folder: Path, **kwargs: object) -> None:
        assert folder.parent == temp_dir and folder.is_dir()
        raise RuntimeError("the JVM did not start")

    monkeypatch.setattr(session, "build_session", failing)
    resource = SparkSessionResource(SparkAppSettings(log_dir=tmp_path / "log"))
    with pytest.raises(RuntimeError, match="the JVM did not start"):
        resource.start()
    assert list(temp_dir.iterdir()) == []


def test_the_folder_of_a_killed_app_is_removed_by_the_next_start(temp_dir: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    killed = temp_dir / f"spark_app-session-{dead.stdout.strip()}-abc"
    alive = temp_dir / f"spark_app-session-{os.getppid()}-def"  # another app, still running
    for folder in (killed, alive):
        folder.mkdir()
        (folder / "log4j2.properties").write_text("rootLogger.level = warn\n")
    mine = session._session_folder()
    assert not killed.exists() and alive.exists()
    assert mine.name.startswith(f"spark_app-session-{os.getpid()}-")


def test_at_exit_every_folder_of_this_process_goes_and_no_other(temp_dir: Path) -> None:
    # An empty one as the JVM's late shutdown left it in CI, and the JVM's own folder.
    back = temp_dir / f"spark_app-session-{os.getpid()}-xyz"
    jvm = temp_dir / f"spark_app-session-{os.getpid()}-jvm"
    other = temp_dir / f"spark_app-session-{os.getppid()}-def"  # another app's, still running
    for folder in (back, jvm, other):
        folder.mkdir()
    session.sweep_own_folders()
    assert [p.name for p in temp_dir.iterdir()] == [other.name]


def test_a_process_that_made_a_session_folder_sweeps_its_own_at_exit(temp_dir: Path) -> None:
    # A real process: the sweep is registered by the first session folder, and runs at exit.
    script = (
        "import os, pathlib; from spark_app.runtime import session; "
        "session._session_folder(); "
        "pathlib.Path(session.tempfile.gettempdir(), f'spark_app-session-{os.getpid()}-late').mkdir()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(temp_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert list(temp_dir.iterdir()) == []


def test_the_launchers_environment_is_set_for_the_launch_only() -> None:
    before = dict(os.environ)
    wanted = {**before, "PYSPARK_PYTHON": "/venv/bin/python"}
    wanted.pop("PATH", None)
    with pytest.raises(RuntimeError):
        with _environment(wanted):
            assert os.environ["PYSPARK_PYTHON"] == "/venv/bin/python" and "PATH" not in os.environ
            raise RuntimeError("getOrCreate failed")
    assert dict(os.environ) == before


def test_temporary_files_go_to_the_session_folder_while_it_starts(
    temp_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "session"
    folder.mkdir()
    with pytest.raises(RuntimeError):
        with _temporary_files_in(folder):
            assert Path(tempfile.mkdtemp()).parent == folder  # what PySpark's launcher does
            raise RuntimeError("the JVM did not start")
    assert tempfile.gettempdir() == str(temp_dir)


@pytest.mark.spark
def test_an_app_killed_while_its_jvm_starts_leaves_only_what_the_next_start_sweeps(
    temp_dir: Path, tmp_path: Path
) -> None:
    """kill -9 between PySpark's making its connection folder and the JVM's answer (the window
    in which chaos and an interrupted run met it): the folder is in the killed app's session
    folder, so the next start's sweep leaves /tmp as it was."""
    script = (
        "from pathlib import Path; from spark_app.runtime.session import SparkSessionResource; "
        "from spark_app.settings import SparkAppSettings; "
        "SparkSessionResource(SparkAppSettings(master='local[1]', "
        f"log_dir=Path({str(tmp_path / 'log')!r}))).start()"
    )
    app = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(temp_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        connection = wait_until(
            lambda: next(temp_dir.glob("*/tmp*"), None) or next(temp_dir.glob("tmp*"), None),
            timeout=60,
            what="PySpark's connection folder",
            poll=0.01,
        )
    finally:
        app.kill()
        app.wait()
    assert connection.parent.name.startswith(f"spark_app-session-{app.pid}-"), connection
    wait_until(lambda: not _jvm_of(app.pid), timeout=30, what="the JVM to end with its parent")
    session.sweep_dead_sessions()
    assert list(temp_dir.iterdir()) == []


def _jvm_of(pid: int) -> bool:
    """Whether a JVM started by `pid` still runs (it ends when its stdin, our pipe, closes)."""
    found = subprocess.run(
        ["pgrep", "-f", f"spark_app-session-{pid}-"], capture_output=True, text=True
    )
    return bool(found.stdout.strip())


@pytest.mark.spark
def test_a_session_leaves_nothing_behind(temp_dir: Path, tmp_path: Path) -> None:
    """Start and stop: no temporary folder left, this process's environment as it was, and the
    Python workers still run our interpreter and import spark_app (from the JVM's environment)."""
    before = dict(os.environ)
    resource = SparkSessionResource(SparkAppSettings(master="local[1]", log_dir=tmp_path / "log"))
    with resource as spark:
        assert resource.folder is not None and (resource.folder / "log4j2.properties").exists()
        seen = (
            spark.sparkContext.parallelize([0], 1)
            .map(lambda _: (__import__("spark_app").__name__, __import__("sys").executable))
            .collect()
        )
        assert seen == [("spark_app", sys.executable)]
    # The JVM's own temporary folder outlives the session on purpose: the JVM lives as long as
    # this process (removed at its exit, or by the next start after a kill; the kill -9 e2e
    # test checks /tmp afterwards). Nothing else is left.
    assert [p.name for p in temp_dir.iterdir()] == [f"spark_app-session-{os.getpid()}-jvm"]
    # PySpark's own SPARK_AUTH_SOCKET_TIMEOUT and SPARK_BUFFER_SIZE aside, nothing changed.
    ours = ("PYSPARK_PYTHON", "PYTHONPATH", "SPARK_LOCAL_IP", "PYTHONDONTWRITEBYTECODE")
    assert {k: os.environ.get(k) for k in ours} == {k: before.get(k) for k in ours}
