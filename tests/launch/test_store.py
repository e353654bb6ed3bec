"""A checkpoint store is ready once its ready line is out: its URL, its start time and its HTTP
API read from that line, by a look that does not wait (the demo) or by a wait (the stage)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from checkpoint_stores.mirror import StoreApi
from launch.errors import ProcessError
from launch.group import ProcessGroup
from launch.store import StoreProcess

# What `python -m checkpoint_stores hdfs` prints once the store answers (checkpoint_stores/cli.py).
READY = (
    "hdfs store ready at hdfs://127.0.0.1:8020 in 8.8 s (NameNode web UI and WebHDFS at "
    "http://127.0.0.1:9870, JVM pid 4242, data in /tmp/data); Ctrl-C stops it and removes the data"
)


def _stand_in(group: ProcessGroup, store: StoreProcess, script: str) -> None:
    """A process in the store's place that prints what `script` prints (no JVM needed)."""
    store.process = group.start("hdfs-store", [sys.executable, "-c", script])


def test_the_url_start_time_and_api_come_from_the_ready_line(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        store = StoreProcess("hdfs", group, tmp_path / "data", tmp_path / "log")
        assert not store.ready() and store.url is None  # not started: nothing to read
        _stand_in(group, store, f"import time; time.sleep(0.3); print({READY!r}); time.sleep(60)")
        assert store.wait_ready(timeout=20) == "hdfs://127.0.0.1:8020"
        assert store.ready() and store.started_in == 8.8
        assert store.api == StoreApi("hdfs", "http://127.0.0.1:9870")


def test_a_look_before_the_line_finds_nothing_yet(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        store = StoreProcess("hdfs", group, tmp_path / "data", tmp_path / "log")
        _stand_in(
            group, store, "print('starting the NameNode', flush=True); import time; time.sleep(60)"
        )
        store.process.wait_for("starting", timeout=20)  # type: ignore[union-attr]
        assert not store.ready() and store.url is None and store.api is None


def test_a_store_that_exits_first_says_so_with_its_last_words(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        store = StoreProcess("hdfs", group, tmp_path / "data", tmp_path / "log")
        _stand_in(group, store, "print('java: not found'); raise SystemExit(1)")
        with pytest.raises(ProcessError, match="(?s)before the hdfs store to answer.*java: not"):
            store.wait_ready(timeout=20)
