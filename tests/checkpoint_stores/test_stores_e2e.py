"""Each store as a user runs it (`python -m checkpoint_stores hdfs|s3`): it answers, a file
written through its own API reads back, and when it stops (SIGTERM, or its parent killed) the
JVM is gone, with nothing left in /tmp. One test per store; the scenarios on a store are in
tests/scenarios/catalog/test_checkpoint_stores_e2e.py (nightly).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import signal
import sys
import urllib.error
import urllib.request
from email.utils import formatdate
from pathlib import Path

import pytest

from checkpoint_stores.cli import parse_ready_line
from checkpoint_stores.locations import ACCESS_KEY, BUCKET, SECRET_KEY
from checkpoint_stores.mirror import StoreApi, copy_down, delete
from scenarios.engine.apps import free_port
from scenarios.engine.processes import ManagedProcess
from scenarios.engine.waiting import wait_until

pytestmark = pytest.mark.e2e

_ROOT = Path(__file__).resolve().parents[2]
# What a Hadoop or s3proxy JVM writes to java.io.tmpdir unless told otherwise. Other JVMs on a
# shared machine come and go in /tmp meanwhile, so only these names count.
_LEFT_IN_TMP = re.compile(r"jetty|hadoop|s3proxy|snappy")


def _tmp_entries() -> set[str]:
    return set(os.listdir("/tmp"))


def _left_in_tmp(before: set[str], jvm: int) -> set[str]:
    """What the store's JVM left in /tmp: its files, and its own perf-data file."""
    left = {e for e in _tmp_entries() - before if _LEFT_IN_TMP.search(e)}
    return left | {str(p) for p in Path("/tmp").glob(f"hsperfdata_*/{jvm}")}


def _start(store: str, folder: Path, run: int = 1) -> tuple[ManagedProcess, str, int]:
    argv = [sys.executable, "-m", "checkpoint_stores", store, "--port", str(free_port()),
            "--data-dir", str(folder / "data"), "--log-dir", str(folder / "log")]
    process = ManagedProcess(f"{store}-store", argv, output=folder / f"store-{run}.out", cwd=folder,
                             env={**os.environ, "PYTHONPATH": str(_ROOT)}).start()
    process.wait_for(parse_ready_line, timeout=180, what="the ready line")
    _, url, _ = parse_ready_line(process.output()) or ("", "", 0.0)
    jvm = int(re.search(r"JVM pid (\d+)", process.output()).group(1))  # type: ignore[union-attr]
    return process, url, jvm


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie until its parent reaps it: gone all the same.
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def _webhdfs_roundtrip(web: str, path: str, data: bytes) -> bytes:
    """WebHDFS's two-step create (the NameNode redirects to a DataNode), then a read."""
    create = urllib.request.Request(f"{web}/webhdfs/v1{path}?op=CREATE&user.name=root", method="PUT")
    try:
        urllib.request.urlopen(create, timeout=10)
        raise AssertionError("the NameNode should redirect a create to a DataNode")
    except urllib.error.HTTPError as redirect:
        assert redirect.code == 307
        location = redirect.headers["Location"]
    put = urllib.request.Request(location, data=data, method="PUT")
    with urllib.request.urlopen(put, timeout=10) as reply:
        assert reply.status == 201
    with urllib.request.urlopen(f"{web}/webhdfs/v1{path}?op=OPEN&user.name=root", timeout=10) as reply:
        return bytes(reply.read())


def _s3_request(url: str, method: str, key: str, data: bytes | None = None) -> bytes:
    """A request signed with AWS signature v2, which s3proxy accepts, as an S3 client sends it."""
    date = formatdate(usegmt=True)
    content_type = "application/octet-stream" if data is not None else ""
    signed = f"{method}\n\n{content_type}\n{date}\n/{BUCKET}/{key}".encode()
    signature = base64.b64encode(hmac.new(SECRET_KEY.encode(), signed, hashlib.sha1).digest())
    headers = {"Date": date, "Authorization": f"AWS {ACCESS_KEY}:{signature.decode()}"}
    if data is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(f"{url}/{BUCKET}/{key}", data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as reply:
        return bytes(reply.read())


def _copied_then_deleted(api: StoreApi, location: str, dest: Path) -> None:
    """What a scenario does with a store's checkpoint: read a copy, then the hard reset."""
    copy = copy_down(api, location, dest)
    assert sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()) in (
        ["commits/0"], ["offsets/0", "offsets/1"])
    delete(api, location)
    assert not any(copy_down(api, location, dest).iterdir())


def test_hdfs_answers_keeps_a_file_and_is_gone_after_sigterm(tmp_path: Path) -> None:
    before = _tmp_entries()
    process, url, jvm = _start("hdfs", tmp_path)
    try:
        assert url.startswith("hdfs://127.0.0.1:")
        web = re.search(r"WebHDFS at (http://\S+),", process.output()).group(1)  # type: ignore[union-attr]
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
    process, url, jvm = _start("s3", tmp_path)
    try:
        _s3_request(url, "PUT", "checkpoints/offsets/0", b"v1\n{}")
        assert _s3_request(url, "GET", "checkpoints/offsets/0") == b"v1\n{}"
        assert (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets" / "0").is_file()
        _s3_request(url, "PUT", "checkpoints/offsets/1", b"v1\n{}")
        _copied_then_deleted(StoreApi("s3", url), f"s3a://{BUCKET}/checkpoints", tmp_path / "copy")
        _s3_request(url, "PUT", "checkpoints/offsets/2", b"v1\n{}")
        os.kill(process.pid, signal.SIGKILL)  # type: ignore[arg-type]  # no handler runs
        wait_until(lambda: _gone(jvm), timeout=30, what="s3proxy's JVM to die with its parent")
    finally:
        process.stop()
    assert not _left_in_tmp(before, jvm)
    # Its data stays in the folder it was given (no handler ran); the next start there removes it.
    assert (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets" / "2").is_file()
    restarted, _, jvm = _start("s3", tmp_path, run=2)
    try:
        assert not (tmp_path / "data" / "blobs" / BUCKET / "checkpoints" / "offsets").exists()
        assert restarted.terminate(timeout=60) == 0
    finally:
        restarted.stop()
