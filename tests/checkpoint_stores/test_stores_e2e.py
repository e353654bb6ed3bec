"""Each store as a user runs it (`python -m checkpoint_stores hdfs|s3`): it answers, a file
written through its own API reads back, and when it stops (SIGTERM, or its parent killed) the
JVM is gone, with nothing left in /tmp. One test per store; the scenarios on a store are in
tests/scenarios/catalog/test_checkpoint_stores_e2e.py (nightly).
"""

from __future__ import annotations

import os
import re
import signal
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from checkpoint_stores import mirror
from checkpoint_stores.locations import BUCKET
from checkpoint_stores.mirror import StoreApi, copy_down, delete
from launch.waiting import wait_until
from tests.checkpoint_stores.store_helpers import s3_request, start_store, web_url, webhdfs_put

pytestmark = pytest.mark.e2e

# What a Hadoop or s3proxy JVM writes to java.io.tmpdir unless told otherwise. Other JVMs on a
# shared machine come and go in /tmp meanwhile, so only these names count.
_LEFT_IN_TMP = re.compile(r"jetty|hadoop|s3proxy|snappy")


def _tmp_entries() -> set[str]:
    return set(os.listdir("/tmp"))


def _left_in_tmp(before: set[str], jvm: int) -> set[str]:
    """What the store's JVM left in /tmp: its files, and its own perf-data file."""
    left = {e for e in _tmp_entries() - before if _LEFT_IN_TMP.search(e)}
    return left | {str(p) for p in Path("/tmp").glob(f"hsperfdata_*/{jvm}")}


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie until its parent reaps it: gone all the same.
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def _webhdfs_roundtrip(web: str, path: str, data: bytes) -> bytes:
    webhdfs_put(web, path, data)
    with urllib.request.urlopen(
        f"{web}/webhdfs/v1{path}?op=OPEN&user.name=root", timeout=10
    ) as reply:
        return bytes(reply.read())


def _copied_then_deleted(api: StoreApi, location: str, dest: Path) -> None:
    """What a scenario does with a store's checkpoint: read a copy, then the hard reset."""
    copy = copy_down(api, location, dest)
    listed = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert listed in (["commits/0"], ["offsets/0", "offsets/1"])
    # A file listed, then gone before it is read (the query renames its temporary files and
    # cleans old versions while the scenario copies): left out, the rest copied.
    partial = dest.with_name("partial")
    mirror._copy_files(api, location, [".1.gone.tmp", *listed], partial)
    assert sorted(str(p.relative_to(partial)) for p in partial.rglob("*") if p.is_file()) == listed
    delete(api, location)
    assert not any(copy_down(api, location, dest).iterdir())


def test_hdfs_answers_keeps_a_file_and_is_gone_after_sigterm(tmp_path: Path) -> None:
    before = _tmp_entries()
    process, url, jvm = start_store("hdfs", tmp_path)
    try:
        assert url.startswith("hdfs://127.0.0.1:")
        web = web_url(process)
        assert _webhdfs_roundtrip(web, "/checkpoints/commits/0", b"v1\n{}") == b"v1\n{}"
        _copied_then_deleted(StoreApi("hdfs", web), f"{url}/checkpoints", tmp_path / "copy")
        assert process.terminate(timeout=60) == 0
        wait_until(lambda: _gone(jvm), timeout=30, what="the NameNode's JVM to end")
        assert not (tmp_path / "data").exists()
    finally:
        process.stop()
    assert not _left_in_tmp(before, jvm)


def test_s3_answers_keeps_an_object_and_dies_with_its_killed_parent(tmp_path: Path) -> None:
    before = _tmp_entries()
    process, url, jvm = start_store("s3", tmp_path)
    try:
        s3_request(url, "PUT", "checkpoints/offsets/0", b"v1\n{}")
        assert s3_request(url, "GET", "checkpoints/offsets/0") == b"v1\n{}"
        assert (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets" / "0").is_file()
        s3_request(url, "PUT", "checkpoints/offsets/1", b"v1\n{}")
        _copied_then_deleted(StoreApi("s3", url), f"s3a://{BUCKET}/checkpoints", tmp_path / "copy")
        s3_request(url, "PUT", "checkpoints/offsets/2", b"v1\n{}")
        os.kill(process.pid, signal.SIGKILL)  # type: ignore[arg-type]  # no handler runs
        wait_until(lambda: _gone(jvm), timeout=30, what="s3proxy's JVM to die with its parent")
    finally:
        process.stop()
    assert not _left_in_tmp(before, jvm)
    # Its data stays in the folder it was given (no handler ran); the next start there removes it.
    assert (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets" / "2").is_file()
    restarted, _, jvm = start_store("s3", tmp_path, run=2)
    try:
        assert not (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets").exists()
        assert restarted.terminate(timeout=60) == 0
    finally:
        restarted.stop()
