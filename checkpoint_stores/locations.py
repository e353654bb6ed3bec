"""Where a checkpoint lives: one value, `CheckpointPlace`, with its URI, the store's address and
Spark's settings.

Pure (no I/O), so the command lines and the session plan are tested without a store. A store
is named by a URL: `hdfs://HOST:PORT` for HDFS's NameNode, `http://HOST:PORT[/BUCKET]` for an
S3 endpoint (ours, or a user's own MinIO). The checkpoint folder's path is kept under it, so
`checkpoints` becomes `hdfs://127.0.0.1:8020/checkpoints` or `s3a://checkpoint-experience/checkpoints`.

A place is made once, from the command line (`CheckpointPlace.from_options`) or by whoever
starts an app, and handed down whole: its store's URL when none was given is decided in one
place (`store_url`), and the location Spark is given in one (`location`).

Usage:
    place = CheckpointPlace.from_options("checkpoints", "s3")  # or ("s3a://mine/cp", url=...)
    place.store_url     # "http://127.0.0.1:9000": where `python -m checkpoint_stores s3` listens
    place.location      # "s3a://checkpoint-experience/checkpoints", Spark's checkpointLocation
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import urlsplit

__all__ = [
    "CheckpointPlace",
    "STORES",
    "REMOTE_STORES",
    "StoreKind",
    "DEFAULT_PORTS",
    "BUCKET",
    "ACCESS_KEY",
    "SECRET_KEY",
    "default_url",
    "store_address",
    "bucket_of",
    "checkpoint_uri",
]

StoreKind = Literal["local", "hdfs", "s3"]
STORES: tuple[StoreKind, ...] = ("local", "hdfs", "s3")
REMOTE_STORES: tuple[StoreKind, ...] = ("hdfs", "s3")
# HDFS's usual NameNode RPC port, and MinIO's: a user's own store on its usual port just works.
DEFAULT_PORTS = {"hdfs": 8020, "s3": 9000}
_SCHEMES = {"hdfs": ("hdfs",), "s3": ("http", "https")}
BUCKET = "checkpoint-experience"
# s3proxy's credentials for our bucket: it listens on 127.0.0.1 only, so they guard nothing;
# S3A signs every request with them, as it would against AWS.
ACCESS_KEY, SECRET_KEY = "checkpoint", "experience"
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_URI_FORMS = "a folder here, hdfs://NAMENODE[:PORT]/PATH or s3a://BUCKET/PATH"


def default_url(store: StoreKind) -> str:
    """Where `python -m checkpoint_stores STORE` listens unless told another port."""
    scheme = _SCHEMES[store][0]
    return f"{scheme}://127.0.0.1:{DEFAULT_PORTS[store]}"


def store_address(store: StoreKind, url: str) -> tuple[str, int]:
    """(host, port) of the store's URL; ValueError in one line saying what a URL looks like."""
    example = default_url(store)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        port, parts = None, None
    if parts is None or parts.scheme not in _SCHEMES[store] or not parts.hostname or port is None:
        raise ValueError(f"{url!r} is not an {store} store URL like {example}")
    if store == "hdfs" and parts.path not in ("", "/"):
        raise ValueError(
            f"{url!r}: an hdfs store URL names the NameNode only ({example}); "
            f"the folder is --checkpoint-dir"
        )
    return parts.hostname, port


def bucket_of(url: str) -> str:
    """The bucket an S3 URL names in its path (`http://host:9000/my-bucket`), else ours."""
    name = urlsplit(url).path.strip("/")
    if "/" in name:
        raise ValueError(f"{url!r}: an s3 store URL names at most a bucket, not a folder")
    return name or BUCKET


@dataclass(frozen=True)
class CheckpointPlace:
    """Where a checkpoint lives: `folder` here (`local`), or that folder's path on an HDFS or
    S3 store named by `url` (None: where `python -m checkpoint_stores KIND` listens).

    Checked as it is made: a URL on a local place, or one that does not fit its store, is a
    ValueError in one line (what the apps print for --checkpoint-store-url)."""

    kind: StoreKind = "local"
    folder: Path = Path("checkpoints")
    url: str | None = None

    def __post_init__(self) -> None:
        if self.url is None:
            return
        if self.kind == "local":
            raise ValueError("--checkpoint-store-url needs --checkpoint-store hdfs or s3")
        store_address(self.kind, self.url)
        if self.kind == "s3":
            bucket_of(self.url)

    @classmethod
    def from_options(
        cls, checkpoint_dir: str, kind: StoreKind = "local", url: str | None = None
    ) -> CheckpointPlace:
        """The place the apps' options name: `--checkpoint-dir` as a folder on `kind`
        (`--checkpoint-store`) at `url` (`--checkpoint-store-url`), or as a URI that names the
        store and its URL too (`checkpoint_uri`). ValueError in one line when the URI is not one
        we take or disagrees with `kind` or `url`, or the URL does not fit the store."""
        found = checkpoint_uri(checkpoint_dir, url)
        if found is None:
            return cls(kind, Path(checkpoint_dir), url)
        store, store_url, folder = found
        # local is the default, so it cannot disagree: a URI says where the checkpoint is.
        if kind not in ("local", store):
            raise ValueError(
                f"--checkpoint-dir {checkpoint_dir} is on {store}, but --checkpoint-store "
                f"says {kind}: give one"
            )
        return cls(store, folder, store_url)

    @property
    def is_local(self) -> bool:
        """True when the checkpoint is a folder here, which can be read without Spark."""
        return self.kind == "local"

    @property
    def store_url(self) -> str | None:
        """The store's URL: the one given, else where `python -m checkpoint_stores KIND`
        listens; None for a local folder. The one place that default is decided."""
        if self.kind == "local":
            return None
        return self.url or default_url(self.kind)

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) of the store; ValueError for a local folder, which has none."""
        if self.store_url is None:
            raise ValueError(f"a local checkpoint ({self.folder}) has no store address")
        return store_address(self.kind, self.store_url)

    @property
    def location(self) -> str:
        """The `checkpointLocation` Spark is given: the local folder made absolute, or the
        folder's path on the store (relative paths stay relative to the store's root)."""
        if self.store_url is None:
            return str(self.folder.resolve())
        host, port = self.address
        path = str(PurePosixPath("/", self.folder.as_posix())).lstrip("/")
        if self.kind == "hdfs":
            return f"hdfs://{host}:{port}/{path}"
        return f"s3a://{bucket_of(self.store_url)}/{path}"

    def hadoop_conf(self) -> dict[str, str]:
        """Spark settings (`spark.hadoop.*`) that point Hadoop's S3A client at the endpoint;
        nothing for the other stores.

        Path-style requests (`host/bucket/key`), since the endpoint is an IP with no bucket
        subdomains; the region only names the signature's scope, s3proxy ignores it."""
        if self.kind != "s3" or self.store_url is None:
            return {}
        host, port = self.address
        prefix = "spark.hadoop.fs.s3a."
        secure = self.store_url.startswith("https")
        return {
            f"{prefix}endpoint": f"{'https' if secure else 'http'}://{host}:{port}",
            f"{prefix}path.style.access": "true",
            f"{prefix}access.key": ACCESS_KEY,
            f"{prefix}secret.key": SECRET_KEY,
            f"{prefix}connection.ssl.enabled": str(secure).lower(),
            f"{prefix}endpoint.region": "us-east-1",
        }


def checkpoint_uri(text: str, store_url: str | None) -> tuple[StoreKind, str | None, Path] | None:
    """`--checkpoint-dir` given as a URI, as Spark's users write a checkpoint's place: (the
    store, its URL, the folder's path on it); None for a plain folder.

    `hdfs://NAMENODE[:PORT]/PATH` names the NameNode (port 8020 when left out). `s3a://BUCKET/PATH`
    names the bucket only: the endpoint is `store_url` (ours when None), as S3A takes it from
    `fs.s3a.endpoint`. `file:///PATH` is a folder here. ValueError in one line for any other
    scheme, a URI without a folder, or a `store_url` naming another NameNode or bucket.
    """
    if not _URI.match(text):
        return None
    parts = urlsplit(text)
    scheme, path = parts.scheme.lower(), parts.path.strip("/")
    if scheme == "file":
        return "local", None, Path(parts.path)
    if scheme in ("s3", "s3n"):
        raise ValueError(
            f"{text!r}: Hadoop's S3 client is s3a://; write s3a://{parts.netloc}/{path}"
        )
    if scheme not in ("hdfs", "s3a"):
        raise ValueError(f"{text!r}: --checkpoint-dir takes {_URI_FORMS}")
    if not parts.hostname or not path:
        raise ValueError(
            f"{text!r} names no {'NameNode' if scheme == 'hdfs' else 'bucket'} "
            f"or no folder: write {_URI_FORMS}"
        )
    return _hdfs_uri(text, store_url) if scheme == "hdfs" else _s3a_uri(text, store_url)


def _hdfs_uri(text: str, store_url: str | None) -> tuple[StoreKind, str, Path]:
    parts = urlsplit(text)
    url = f"hdfs://{parts.hostname}:{parts.port or DEFAULT_PORTS['hdfs']}"
    if store_url is not None and store_address("hdfs", store_url) != store_address("hdfs", url):
        raise ValueError(
            f"--checkpoint-dir {text} and --checkpoint-store-url {store_url} name "
            "two NameNodes: give one"
        )
    return "hdfs", url, Path(parts.path.strip("/"))


def _s3a_uri(text: str, store_url: str | None) -> tuple[StoreKind, str, Path]:
    parts = urlsplit(text)
    endpoint = store_url or default_url("s3")
    store_address("s3", endpoint)  # the endpoint itself must be an S3 URL
    named = urlsplit(endpoint).path.strip("/")
    if named and named != parts.netloc:
        raise ValueError(
            f"--checkpoint-dir {text} and --checkpoint-store-url {store_url} name "
            "two buckets: give the bucket once"
        )
    base = endpoint.rstrip("/").removesuffix(f"/{named}") if named else endpoint.rstrip("/")
    return "s3", f"{base}/{parts.netloc}", Path(parts.path.strip("/"))
