"""A store as a test runs it: `python -m checkpoint_stores hdfs|s3` as a child process, and
files put on it through its own HTTP API (WebHDFS, S3), without Spark or Hadoop's client.

Usage:
    process, url, jvm = start_store("hdfs", tmp_path)
    webhdfs_put(web_url(process), "/checkpoints/commits/0", b"v1\\n{}")
    s3_request(url, "PUT", "checkpoints/offsets/0", b"v1\\n{}")
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import sys
import urllib.error
import urllib.request
from email.utils import formatdate
from pathlib import Path

from checkpoint_stores.cli import parse_ready_line
from checkpoint_stores.locations import ACCESS_KEY, BUCKET, SECRET_KEY
from launch.ports import free_port
from launch.process import ManagedProcess

__all__ = ["start_store", "web_url", "webhdfs_put", "s3_request", "put_folder"]

_ROOT = Path(__file__).resolve().parents[2]


def start_store(store: str, folder: Path, run: int = 1) -> tuple[ManagedProcess, str, int]:
    """(the store's process, its URL from the ready line, its JVM's pid)."""
    argv = [
        sys.executable,
        "-m",
        "checkpoint_stores",
        store,
        "--port",
        str(free_port()),
        "--data-dir",
        str(folder / "data"),
        "--log-dir",
        str(folder / "log"),
    ]
    process = ManagedProcess(
        f"{store}-store",
        argv,
        output=folder / f"store-{run}.out",
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(_ROOT)},
    ).start()
    process.wait_for(parse_ready_line, timeout=180, what="the ready line")
    _, url, _ = parse_ready_line(process.output()) or ("", "", 0.0)
    jvm = int(re.search(r"JVM pid (\d+)", process.output()).group(1))  # type: ignore[union-attr]
    return process, url, jvm


def web_url(process: ManagedProcess) -> str:
    """The NameNode's WebHDFS address, from the hdfs store's ready line."""
    return re.search(r"WebHDFS at (http://\S+),", process.output()).group(1)  # type: ignore[union-attr]


def webhdfs_put(web: str, path: str, data: bytes) -> None:
    """WebHDFS's two-step create: the NameNode redirects to a DataNode, which takes the bytes."""
    create = urllib.request.Request(
        f"{web}/webhdfs/v1{path}?op=CREATE&user.name=root", method="PUT"
    )
    try:
        urllib.request.urlopen(create, timeout=10)
        raise AssertionError("the NameNode should redirect a create to a DataNode")
    except urllib.error.HTTPError as redirect:
        assert redirect.code == 307
        location = redirect.headers["Location"]
    put = urllib.request.Request(location, data=data, method="PUT")
    with urllib.request.urlopen(put, timeout=10) as reply:
        assert reply.status == 201


def s3_request(url: str, method: str, key: str, data: bytes | None = None) -> bytes:
    """A request signed with AWS signature v2, which s3proxy accepts, as an S3 client sends it."""
    date = formatdate(usegmt=True)
    content_type = "application/octet-stream" if data is not None else ""
    signed = f"{method}\n\n{content_type}\n{date}\n/{BUCKET}/{key}".encode()
    signature = base64.b64encode(hmac.new(SECRET_KEY.encode(), signed, hashlib.sha1).digest())
    headers = {"Date": date, "Authorization": f"AWS {ACCESS_KEY}:{signature.decode()}"}
    if data is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(
        f"{url}/{BUCKET}/{key}", data=data, method=method, headers=headers
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return bytes(reply.read())


def put_folder(store: str, process: ManagedProcess, url: str, folder: Path, under: str) -> None:
    """The local checkpoint `folder` put on the store under the path `under`, as Spark writes one
    there: without the `.crc` files of the local file system (HDFS and S3 check on their own)."""
    for file in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".crc"):
        relative = f"{under}/{file.relative_to(folder).as_posix()}"
        if store == "hdfs":
            webhdfs_put(web_url(process), f"/{relative}", file.read_bytes())
        else:
            s3_request(url, "PUT", relative, file.read_bytes())
