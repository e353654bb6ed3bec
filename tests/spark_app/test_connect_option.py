"""`--connect`: the query runs through Spark Connect on a server inside the app's own JVM.

What can be checked without Spark: the flag round-trips through the app's command line, the
session's plan starts the server on a free loopback port with a token of its own, and what goes
to the server's Python process (the foreachBatch recipe, the gate a stop closes) pickles and
behaves there as the app's own writer and gate do. The app under Connect, end to end, is in
tests/scenarios/ (the fidelity row)."""

from __future__ import annotations

import importlib.util
import io
import os
import signal
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from pyspark import cloudpickle

from spark_app.cli import main_parser, run_cli, settings_from_args
from spark_app.query.graceful_stop import StopBeforeOutput
from spark_app.query.server_writer import FileGate, InServer, _WithoutWorkerLines
from spark_app.runtime.connect import PLUGIN, connect_conf
from spark_app.runtime.session_plan import Found, session_conf
from spark_app.settings import SparkAppSettings

FOUND = Found(
    python="/venv/bin/python",
    code_root=Path("/repo"),
    log4j_file=Path("/tmp/s/log4j2.properties"),
    checkpoint_files_class="org.apache.spark.FileSystemBasedCheckpointFileManager",
    connect_token="t0k3n",
)


def test_connect_is_a_flag_kept_in_argv() -> None:
    settings = settings_from_args(main_parser().parse_args(["--connect"]))
    assert settings.connect and "--connect" in settings.to_argv()
    assert settings_from_args(main_parser().parse_args(settings.to_argv())) == settings
    assert not settings_from_args(main_parser().parse_args([])).connect


def test_the_plan_starts_a_connect_server_on_a_free_loopback_port_only_when_asked() -> None:
    conf = session_conf(SparkAppSettings(connect=True), FOUND)
    assert conf["spark.plugins"] == PLUGIN
    assert conf["spark.connect.grpc.binding.port"] == "0"  # a free port: two apps at once
    assert conf["spark.connect.grpc.binding.address"] == "127.0.0.1"
    assert conf["spark.connect.authenticate.token"] == "t0k3n"
    assert conf["spark.master"] == "local[2]"  # the server runs the query on the app's master
    plain = session_conf(SparkAppSettings(), FOUND)
    assert not set(connect_conf("t0k3n")) & set(plain)


def test_a_file_gate_keeps_outputgates_rule_across_processes(tmp_path: Path) -> None:
    gate = FileGate(tmp_path / "gate").open_fresh()
    assert gate.close() is None  # closed before any batch began
    gate = FileGate(tmp_path / "gate").open_fresh()  # the next start opens it again
    gate.enter(3)
    in_server = cloudpickle.loads(cloudpickle.dumps(gate))  # as the server's process gets it
    in_server.enter(4)
    assert gate.close() == 4
    with pytest.raises(StopBeforeOutput, match="batch 5 began after the stop"):
        in_server.enter(5)
    assert gate.close() == 4  # the batch refused did not count as begun


class _Recorder:
    """A writer that records the batches it was given, with the process it ran in."""

    made: list[int] = []

    def __init__(self, folder: Path) -> None:
        _Recorder.made.append(os.getpid())
        self.folder = folder

    def __call__(self, batch: object, batch_id: int) -> None:
        (self.folder / f"batch-{batch_id}").write_text(str(batch), encoding="utf-8")


def test_the_writer_is_built_where_it_runs_once_and_serves_every_batch(tmp_path: Path) -> None:
    _Recorder.made.clear()
    gate = FileGate(tmp_path / "gate").open_fresh()
    writer = InServer(partial(_Recorder, tmp_path), gate)
    shipped = cloudpickle.loads(cloudpickle.dumps(writer))
    assert _Recorder.made == []  # nothing built in the app's process
    shipped("rows of 0", 0)
    shipped("rows of 1", 1)
    assert _Recorder.made == [os.getpid()]
    assert (tmp_path / "batch-1").read_text(encoding="utf-8") == "rows of 1"
    # Shipped again after it ran (a restart of the query): built afresh, not carried over.
    again = cloudpickle.loads(cloudpickle.dumps(shipped))
    again("rows of 2", 2)
    assert len(_Recorder.made) == 2
    assert writer.count_of(1) is None  # the count lives in the server's process


def test_pysparks_worker_lines_are_dropped_and_everything_else_kept() -> None:
    out = io.StringIO()
    quiet = _WithoutWorkerLines(out)
    print("Streaming ForeachBatch worker Started batch 7 with DF id x", file=quiet)
    print("batch 7: a line of ours", file=quiet)
    print("Streaming ForeachBatch worker Completed batch 7", file=quiet)
    print("", file=quiet)
    assert out.getvalue() == "batch 7: a line of ours\n\n"


_APP = """
import sys, time
from spark_app.query.negative_key import arm_crash_signal
arm_crash_signal(int(sys.argv[1]))
print("armed", flush=True)
time.sleep(60)
"""


def test_the_counters_crash_in_the_servers_process_kills_the_app_and_its_jvm(
    tmp_path: Path,
) -> None:
    """Under --connect the negative key is met in the server's Python process: the app still
    dies at once with 255, as the seed's halt(-1), and its JVM with it; the process that met the
    key does not outlive them."""
    jvm = subprocess.Popen(["sleep", "60"])
    app = subprocess.Popen(
        [sys.executable, "-c", _APP, str(jvm.pid)], stdout=subprocess.PIPE, text=True
    )
    assert app.stdout is not None and app.stdout.readline().strip() == "armed"
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(tmp_path), str(jvm.pid), str(app.pid)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert app.wait(timeout=20) == 255
        assert jvm.wait(timeout=20) == -signal.SIGKILL
        assert server.wait(timeout=10) == 255  # and the server's process goes with the app
    finally:
        for process in (server, app, jvm):
            process.kill()
            process.wait()
    assert server.stderr is not None
    assert "Negative key -5 (value 5): crashing as the seed did" in server.stderr.read()


_SERVER = """
import sys
from pathlib import Path
from spark_app.lines.output_line import OutputRow
from spark_app.query.negative_key import NegativeKeyPolicy
policy = NegativeKeyPolicy("crash-always", Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
policy.crash(OutputRow("Experience", "-5", "5", 5))
"""


def test_connect_without_its_client_is_one_line_before_spark(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An environment without PySpark's connect extra: said in one line, nothing started."""
    real_find = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "grpc" else real_find(name)
    )
    started: list[object] = []
    monkeypatch.setattr("spark_app.query.app.SparkSessionResource", started.append)
    assert run_cli(["--connect"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("spark_app: SPARK_CONNECT_CLIENT_MISSING: ")
    assert "install 'pyspark[connect]==" in err and started == []
