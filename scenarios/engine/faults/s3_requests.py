"""What a Spark app asks of an S3 store, seen from the TCP proxy in front of s3proxy; and the
seed's S3 write latency, put on the wire.

Every request S3A sends is recorded: its kind (an upload, a copy, a delete, a read, a listing),
the object's path, when it went, how long the store took to answer it. An upload (a PUT
without `x-amz-copy-source`) is held back by a latency drawn from the seed's distribution
before it reaches the store: that is where a real object store spends the time. A copy and a
delete (S3A's rename) go at the store's own speed, so what a rename costs is measured, not
assumed.

HTTP/1.1 here is one request at a time per connection, so a chunk from the client that starts
with a method opens the next request, and the next status line from the server (other than
`100 Continue`, which the SDK's `Expect: 100-continue` asks for before the body) answers it.

Usage:
    requests = S3Requests(LatencySpec.parse("lognormal:mean=2.6s,min=1s,max=20s"))
    TcpProxy(port, store, tap=requests); ...; requests.between(start, end)
"""

from __future__ import annotations

import random
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from spark_app.runtime.checkpoint_latency import LatencySpec

__all__ = ["S3Request", "S3Requests"]

_REQUEST = re.compile(rb"^(GET|PUT|POST|HEAD|DELETE) (\S+) HTTP/1\.[01]\r\n")
_COPY = re.compile(rb"^x-amz-copy-source:", re.IGNORECASE | re.MULTILINE)
_STATUS = re.compile(rb"^HTTP/1\.[01] (\d{3})")


@dataclass
class S3Request:
    """One request S3A sent; `answered_sec` and `status` once the store answered."""

    kind: str  # upload, copy, delete, get, head, list, post
    path: str  # bucket/key, without the query
    at: float  # time.monotonic() when the proxy saw it
    held_sec: float  # the latency put on it before it went on
    answered_sec: float | None = None  # from when it went on to the store's status line
    status: int | None = None


class S3Requests:
    """A TCP proxy tap (tcp_proxy.Tap): records S3 requests, holds uploads by `latency`."""

    def __init__(self, latency: LatencySpec | None = None, seed: int | None = None) -> None:
        self._latency = latency
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._open: dict[int, list[S3Request]] = {}
        self.requests: list[S3Request] = []

    def sent(self, connection: int, chunk: bytes) -> float:
        match = _REQUEST.match(chunk)
        if match is None:
            return 0.0  # a body, or the rest of a request
        kind = _kind(match.group(1).decode(), match.group(2).decode(), chunk)
        held = (
            self._latency.draw_ms(self._rng) / 1000
            if (self._latency is not None and kind == "upload")
            else 0.0
        )
        request = S3Request(kind, _path(match.group(2).decode()), time.monotonic(), held)
        with self._lock:
            self.requests.append(request)
            self._open.setdefault(connection, []).append(request)
        return held

    def answered(self, connection: int, chunk: bytes) -> None:
        match = _STATUS.match(chunk)
        if match is None or match.group(1) == b"100":
            return
        with self._lock:
            waiting = self._open.get(connection)
            if not waiting:
                return
            request = waiting.pop(0)
        request.status = int(match.group(1))
        request.answered_sec = time.monotonic() - request.at - request.held_sec

    def between(self, start: float, end: float) -> list[S3Request]:
        """The requests sent in [start, end) (time.monotonic() seconds)."""
        with self._lock:
            return [r for r in self.requests if start <= r.at < end]


def _kind(method: str, target: str, chunk: bytes) -> str:
    if method == "PUT":
        return "copy" if _COPY.search(chunk) else "upload"
    if method == "GET":
        query = urlsplit(target).query
        return "list" if "list-type" in query or "prefix=" in query else "get"
    return method.lower()


def _path(target: str) -> str:
    return unquote(urlsplit(target).path).lstrip("/")
