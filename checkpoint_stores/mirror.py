"""A store's checkpoint copied to a local folder, and deleted on the store, through the
store's own HTTP API (WebHDFS, S3): what a scenario reads without Spark or Hadoop's client.

The copy is a snapshot: read it, then throw it away (`copy_down` empties `dest` first). S3
requests are signed with signature v2, which s3proxy accepts; both calls are for the stores
the project starts (their URLs come from the ready line), not for a user's own.

Usage:
    copy_down(StoreApi("s3", "http://127.0.0.1:9000"), "s3a://checkpoint-experience/cp", Path("m"))
    delete(StoreApi("hdfs", "http://127.0.0.1:9870"), "hdfs://127.0.0.1:8020/cp")
    written_at(StoreApi("hdfs", "http://127.0.0.1:9870"), "hdfs://127.0.0.1:8020/cp/commits")
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path
from xml.etree import ElementTree

from checkpoint_stores.errors import StoreError
from checkpoint_stores.locations import ACCESS_KEY, SECRET_KEY

__all__ = ["StoreApi", "copy_down", "delete", "list_files", "written_at"]

_S3_NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"


@dataclass(frozen=True)
class StoreApi:
    """Where a store answers HTTP: WebHDFS (the NameNode's web port) or the S3 endpoint."""

    kind: str
    http: str


def _split(location: str) -> tuple[str, str]:
    """(bucket or "", path without a leading slash) of an s3a:// or hdfs:// location."""
    parts = urllib.parse.urlsplit(location)
    return (parts.netloc if parts.scheme == "s3a" else ""), parts.path.strip("/")


def list_files(api: StoreApi, location: str) -> list[str]:
    """Every file under `location`, relative to it (none when it does not exist yet); a file
    still being written is listed on HDFS, on S3 only once its upload is done."""
    bucket, prefix = _split(location)
    return _s3_keys(api, bucket, prefix) if api.kind == "s3" else _hdfs_files(api, "/" + prefix)


def written_at(api: StoreApi, location: str) -> dict[str, float]:
    """When each file directly under `location` on HDFS was last written (seconds since the
    epoch, by the NameNode's clock, WebHDFS's modificationTime to the millisecond); empty when
    the folder does not exist yet. S3 is refused: its LastModified has whole seconds only, too
    coarse to time a page that shows a commit in a fraction of one."""
    if api.kind != "hdfs":
        raise StoreError(f"{api.kind}: no modification time finer than a second")
    _, path = _split(location)
    try:
        listing = json.loads(_http(f"{api.http}/webhdfs/v1/{path}?op=LISTSTATUS&user.name=root"))
    except StoreError:
        return {}
    return {
        status["pathSuffix"]: status["modificationTime"] / 1000.0
        for status in listing["FileStatuses"]["FileStatus"]
        if status["type"] == "FILE"
    }


def copy_down(api: StoreApi, location: str, dest: Path) -> Path:
    """Copy every file under `location` into `dest` (emptied first); `dest` when done, with
    nothing in it when the checkpoint does not exist yet."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    _copy_files(api, location, list_files(api, location), dest)
    return dest


def copy_logs_down(api: StoreApi, location: str, dest: Path) -> Path:
    """Copy what says how far the query got (the last two offsets/N, the last commits/N,
    sources/ and metadata) into `dest`, emptied first: enough for the checkpoint reader, a
    few requests however many batches the store holds (the timeline reads it every half
    second). No checkpoint on the store, no `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    files = _newest_logs(list_files(api, location))
    if files:  # no checkpoint there (yet): no folder here either
        dest.mkdir(parents=True)
        _copy_files(api, location, files, dest)
    return dest


class _Vanished(StoreError):
    """The store answered 404: the file was there when listed, and is not any more."""


def _copy_files(api: StoreApi, location: str, files: list[str], dest: Path) -> None:
    """Each of `files` (relative to `location`) read from the store into the same place
    under `dest`. A file gone since the listing is left out: the query runs on while we copy,
    renaming its temporary files and cleaning old versions (a copy is a snapshot anyway)."""
    bucket, prefix = _split(location)
    for relative in files:
        try:
            data = (
                _s3_get(api, bucket, f"{prefix}/{relative}")
                if api.kind == "s3"
                else _hdfs_read(api, f"/{prefix}/{relative}")
            )
        except _Vanished:
            continue
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _newest_logs(files: list[str]) -> list[str]:
    def newest(log: str, count: int) -> list[str]:
        ids = sorted(
            int(name)
            for f in files
            if f.startswith(log + "/") and (name := f[len(log) + 1 :]).isdigit()
        )
        return [f"{log}/{n}" for n in ids[-count:]]

    kept = [f for f in files if f == "metadata" or f.startswith("sources/")]
    return kept + newest("offsets", 2) + newest("commits", 1)


def delete(api: StoreApi, location: str) -> None:
    """Remove the checkpoint under `location` on the store (nothing when it is not there)."""
    bucket, prefix = _split(location)
    if api.kind == "s3":
        # Deepest first, S3A's folder markers (`state/0/`) too: a marker left behind makes the
        # folder look non-empty to the next query (STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY).
        for relative in sorted(_s3_keys(api, bucket, prefix, markers=True), key=len, reverse=True):
            _s3(api, "DELETE", bucket, f"{prefix}/{relative}")
        return
    _http(f"{api.http}/webhdfs/v1/{prefix}?op=DELETE&recursive=true&user.name=root", "DELETE")


# -- WebHDFS --------------------------------------------------------------------------------------


def _http(url: str, method: str = "GET") -> bytes:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, method=method), timeout=30
        ) as reply:
            return bytes(reply.read())
    except (OSError, urllib.error.URLError) as error:
        failure = _Vanished if getattr(error, "code", None) == 404 else StoreError
        raise failure(f"{method} {url} failed: {error}") from error


def _hdfs_files(api: StoreApi, folder: str, below: str = "") -> list[str]:
    try:
        listing = json.loads(_http(f"{api.http}/webhdfs/v1{folder}?op=LISTSTATUS&user.name=root"))
    except StoreError:
        return []  # no such folder (yet)
    found: list[str] = []
    for status in listing["FileStatuses"]["FileStatus"]:
        name = f"{below}{status['pathSuffix']}"
        if status["type"] == "DIRECTORY":
            found += _hdfs_files(api, f"{folder}/{status['pathSuffix']}", f"{name}/")
        else:
            found.append(name)
    return found


def _hdfs_read(api: StoreApi, path: str) -> bytes:
    return _http(f"{api.http}/webhdfs/v1{path}?op=OPEN&user.name=root")  # urllib follows the 307


# -- S3 -------------------------------------------------------------------------------------------


def _s3(api: StoreApi, method: str, bucket: str, key: str, query: str = "") -> bytes:
    date = formatdate(usegmt=True)
    resource = f"/{bucket}/{urllib.parse.quote(key)}" if key else f"/{bucket}/"
    signature = base64.b64encode(
        hmac.new(
            SECRET_KEY.encode(), f"{method}\n\n\n{date}\n{resource}".encode(), hashlib.sha1
        ).digest()
    ).decode()
    request = urllib.request.Request(
        f"{api.http}{resource}{query}",
        method=method,
        headers={"Date": date, "Authorization": f"AWS {ACCESS_KEY}:{signature}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return bytes(reply.read())
    except (OSError, urllib.error.URLError) as error:
        failure = _Vanished if getattr(error, "code", None) == 404 else StoreError
        raise failure(f"S3 {method} {resource} failed: {error}") from error


def _s3_keys(api: StoreApi, bucket: str, prefix: str, markers: bool = False) -> list[str]:
    """Every key under `prefix/`, relative to it; S3A's folder markers (keys ending in /) only
    with `markers`."""
    keys: list[str] = []
    marker = ""
    while True:
        query = f"?prefix={urllib.parse.quote(prefix + '/')}&marker={urllib.parse.quote(marker)}"
        root = ElementTree.fromstring(_s3(api, "GET", bucket, "", query))
        page = [c.findtext(f"{_S3_NS}Key") or "" for c in root.iter(f"{_S3_NS}Contents")]
        keys += [k[len(prefix) + 1 :] for k in page if markers or not k.endswith("/")]
        if root.findtext(f"{_S3_NS}IsTruncated") != "true" or not page:
            return keys
        marker = page[-1]


def _s3_get(api: StoreApi, bucket: str, key: str) -> bytes:
    return _s3(api, "GET", bucket, key)
