"""The Spark app's two "new version" options as a real process on real checkpoints.

`--output-format v2` continues an existing checkpoint exactly once; `--state-schema v2` is
refused on a v1 checkpoint with Spark's own error class in the app's one line, and works on a
new checkpoint. Marked `spark` (four app starts); run with `pytest --slow`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from scenarios.checker.verify import verify_file
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.settings import SparkAppSettings
from tests.spark_app.app_process import REPO_ROOT, AppProcess, wait_until
from tests.spark_app.kafka_helpers import create_topic, send_counter
from tests.spark_app.test_app_e2e import START_SEC

# Nightly to keep CI's hour: the upgrade scenario in CI's scenarios part runs the same three
# starts (v2 output continues, v2 state refused with the same error class, a new checkpoint).
pytestmark = [pytest.mark.spark, pytest.mark.nightly]


def args(bootstrap: str, folder: Path, *extra: str) -> list[str]:
    settings = SparkAppSettings(
        bootstrap_servers=bootstrap,
        checkpoint=CheckpointPlace(folder=folder / "checkpoints"),
        log_dir=folder / "log",
        trigger_sec=0.5,
    )
    return [*settings.to_argv(), *extra]


def run_until(folder: Path, argv: list[str], count: int) -> None:
    """Run the app until its output log's count reaches `count`, then stop it with SIGTERM."""
    out = folder / "log" / "streaming-output.log"
    with AppProcess(folder, argv) as app:
        wait_until(
            lambda: out.exists() and (verify_file(out).final_count or 0) >= count,
            START_SEC,
            f"count {count}",
            app,
        )
        assert app.terminate() == 0, app.output()


def test_output_v2_continues_state_v2_is_refused_then_works_on_a_new_checkpoint(
    embedded_broker, tmp_path: Path
) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    a, b = tmp_path / "a", tmp_path / "b"
    send_counter(bootstrap, range(1, 11))
    run_until(a, args(bootstrap, a), 10)
    send_counter(bootstrap, range(11, 16))
    run_until(a, args(bootstrap, a, "--output-format", "v2"), 15)
    log = a / "log" / "streaming-output.log"
    report = verify_file(log)
    assert report.ok and report.final_count == 15 and report.v2_messages == 5, report
    assert "[StreamingOutput]: v2 Experience-0@10: 11 -> 11" in log.read_text()

    committed = read_checkpoint(a / "checkpoints").last_committed_id
    # Spark checks the state schema when it plans the first batch with data, not at start:
    # without new messages the refused app would wait silently.
    send_counter(bootstrap, range(16, 19))
    with AppProcess(a, args(bootstrap, a, "--state-schema", "v2")) as refused:
        assert refused.wait(START_SEC) == 1, refused.output()
        last = refused.lines()[-1]
    assert last.startswith("spark_app: CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED: "), last
    assert "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE" in last and "blue/green" in last
    assert read_checkpoint(a / "checkpoints").last_committed_id == committed
    assert verify_file(log) == report

    run_until(b, args(bootstrap, b, "--state-schema", "v2"), 18)
    assert verify_file(b / "log" / "streaming-output.log").ok
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "spark_app",
            "inspect",
            "--no-state",
            "--json",
            "--checkpoint-dir",
            str(b / "checkpoints"),
            "--bootstrap-servers",
            bootstrap,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = json.loads(done.stdout)
    assert (found["state_fields"], found["state_schema"]) == (["count", "last_update_ms"], "v2")
