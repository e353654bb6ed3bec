"""The S3 tap on the TCP proxy: real HTTP requests through the proxy to a real server, each
recorded with its kind and answer, the uploads (and only they) held by the drawn latency."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from launch.ports import free_port
from scenarios.engine.faults.s3_requests import S3Requests
from scenarios.engine.faults.tcp_proxy import TcpProxy
from spark_app.runtime.checkpoint_latency import LatencySpec


class _Store(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the AWS SDK's connections are

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        self.send_response(204 if self.command == "DELETE" else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PUT = do_HEAD = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def store_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Store)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_each_request_is_recorded_and_only_uploads_wait(store_port: int) -> None:
    requests = S3Requests(LatencySpec.parse("fixed:300ms"))
    with TcpProxy(free_port(), ("127.0.0.1", store_port), tap=requests) as proxy:
        client = http.client.HTTPConnection("127.0.0.1", proxy.listen_port, timeout=10)
        took = {}
        for name, method, path, headers in (
            ("upload", "PUT", "/bucket/cp/offsets/.0.tmp", {}),
            (
                "copy",
                "PUT",
                "/bucket/cp/offsets/0",
                {"x-amz-copy-source": "bucket/cp/offsets/.0.tmp"},
            ),
            ("delete", "DELETE", "/bucket/cp/offsets/.0.tmp", {}),
            ("list", "GET", "/bucket?list-type=2&prefix=cp%2Foffsets%2F", {}),
            ("head", "HEAD", "/bucket/cp/offsets/0", {}),
        ):
            start = time.monotonic()
            client.request(method, path, body=b"v1\n" if method == "PUT" else None, headers=headers)
            client.getresponse().read()
            took[name] = time.monotonic() - start
        client.close()
    kinds = [(r.kind, r.path, r.status) for r in requests.requests]
    assert kinds == [
        ("upload", "bucket/cp/offsets/.0.tmp", 200),
        ("copy", "bucket/cp/offsets/0", 200),
        ("delete", "bucket/cp/offsets/.0.tmp", 204),
        ("list", "bucket", 200),
        ("head", "bucket/cp/offsets/0", 200),
    ]
    assert [r.held_sec for r in requests.requests] == [0.3, 0.0, 0.0, 0.0, 0.0]
    assert took["upload"] >= 0.3 and max(took[k] for k in took if k != "upload") < 0.3
    assert all(r.answered_sec is not None and r.answered_sec < 0.3 for r in requests.requests)
