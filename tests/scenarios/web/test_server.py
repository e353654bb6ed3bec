"""The live page's server for real, on a free port: what it serves, what it refuses, and that
tabs coming and going never reach the run while stopping ends every stream."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest

from launch.ports import port_is_free
from scenarios.web.options import WebChoice
from scenarios.web.server import LiveServer, WebServerError


class Steps:
    """A guided run's side of stepping: step 3 waits; anything else is refused."""

    def __init__(self) -> None:
        self.released: list[int] = []

    def release(self, step: int) -> str | None:
        if step != 3:
            return f"step {step} is not the one waiting (3 is)"
        self.released.append(step)
        return None


@pytest.fixture
def steps() -> Steps:
    return Steps()


@pytest.fixture
def server(steps: Steps) -> Iterator[LiveServer]:
    with LiveServer(WebChoice(), "test", stepper=steps) as served:
        served.publish("<p>frame one</p>")
        yield served


def _ask(
    server: LiveServer,
    method: str,
    path: str,
    host: str | None = None,
    body: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        connection.putheader("Host", f"127.0.0.1:{server.port}" if host is None else host)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        data = body.encode() if body is not None else b""
        connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        reply = connection.getresponse()
        return reply.status, reply.read().decode()
    finally:
        connection.close()


class Stream:
    """One tab's EventSource, by hand: the events' data as they come."""

    def __init__(self, server: LiveServer) -> None:
        self.socket = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        self.socket.sendall(
            f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Accept: text/event-stream\r\n\r\n".encode()
        )
        self.buffer = b""

    def next_data(self, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while b"\n\n" not in self.buffer.partition(b"\r\n\r\n")[2] or not self._event():
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = self.socket.recv(65536)
            if not chunk:
                raise EOFError("the stream ended")
            self.buffer += chunk
        return self._take()

    def _event(self) -> bool:
        return b"data: " in self.buffer.partition(b"\r\n\r\n")[2]

    def _take(self) -> str:
        head, _, body = self.buffer.partition(b"\r\n\r\n")
        # Chunked transfer: the event's lines sit between chunk sizes; keep the data lines.
        lines = [line[6:] for line in body.split(b"\n") if line.startswith(b"data: ")]
        self.buffer = head + b"\r\n\r\n"
        return b"\n".join(lines).decode()

    def ended(self, timeout: float = 10.0) -> bool:
        self.socket.settimeout(timeout)
        try:
            while chunk := self.socket.recv(65536):
                del chunk
        except TimeoutError:
            return False
        except ConnectionResetError:
            pass
        return True

    def close(self) -> None:
        self.socket.close()


def test_the_page_holds_the_newest_frame_and_names_its_script(server: LiveServer) -> None:
    status, page = _ask(server, "GET", "/")
    assert status == 200 and "<p>frame one</p>" in page and '<script src="/page.js">' in page
    status, script = _ask(server, "GET", "/page.js")
    assert status == 200 and "EventSource" in script
    assert server.url == f"http://127.0.0.1:{server.port}/"


def test_another_host_reads_nothing(server: LiveServer) -> None:
    for host in (f"evil.example:{server.port}", "127.0.0.1:1", ""):
        for path in ("/", "/events", "/page.js"):
            status, body = _ask(server, "GET", path, host=host)
            assert status == 403 and "frame one" not in body


def test_a_tab_sees_each_new_frame(server: LiveServer) -> None:
    stream = Stream(server)
    try:
        assert stream.next_data() == "<p>frame one</p>"
        server.publish("<p>frame\ntwo</p>")
        assert stream.next_data() == "<p>frame\ntwo</p>"  # a line per data field
        server.publish("<p>frame\ntwo</p>")  # the same again: nothing sent
        server.publish("<p>three</p>")
        assert stream.next_data() == "<p>three</p>"
    finally:
        stream.close()


def test_a_step_needs_the_token_and_the_waiting_step(server: LiveServer, steps: Steps) -> None:
    def step(number: int, token: str | None) -> tuple[int, str]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Step-Token"] = token
        return _ask(server, "POST", "/step", body=json.dumps({"step": number}), headers=headers)

    assert step(3, None)[0] == 403
    assert step(3, "guessed")[0] == 403
    status, why = step(4, server.token)
    assert status == 409 and "not the one waiting" in why
    assert (
        _ask(server, "POST", "/step", body="nonsense", headers={"X-Step-Token": server.token})[0]
        == 400
    )
    assert steps.released == []
    assert step(3, server.token)[0] == 204
    assert steps.released == [3]
    assert server.step_url.endswith(f"/#token={server.token}")


def test_a_page_without_stepping_refuses_steps() -> None:
    with LiveServer(WebChoice(), "demo") as served:
        status, _ = _ask(
            served, "POST", "/step", body='{"step": 1}', headers={"X-Step-Token": served.token}
        )
        assert status == 404


def test_ten_tabs_come_and_go_and_the_run_never_hears_of_it(
    server: LiveServer, steps: Steps
) -> None:
    streams = [Stream(server) for _ in range(10)]
    try:
        assert all(s.next_data() == "<p>frame one</p>" for s in streams)
        for stream in streams[:5]:
            stream.close()  # closed tabs
        for _ in range(3):
            assert _ask(server, "GET", "/")[0] == 200  # reloads
        server.publish("<p>later</p>")
        assert all(s.next_data() == "<p>later</p>" for s in streams[5:])
    finally:
        for stream in streams:
            stream.close()
    assert steps.released == []


def test_stopping_ends_every_stream_and_frees_the_port(steps: Steps) -> None:
    server = LiveServer(WebChoice(), "test", stepper=steps).start()
    port = server.port
    assert port is not None
    streams = [Stream(server) for _ in range(3)]
    try:
        assert all(s.next_data() for s in streams)
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 5
        assert all(s.ended(timeout=5) for s in streams)
        assert port_is_free(port)
        server.stop()  # idempotent
    finally:
        for stream in streams:
            stream.close()


def test_a_taken_port_is_one_clear_error() -> None:
    with LiveServer(WebChoice(), "first") as first:
        with pytest.raises(
            WebServerError, match=f"cannot serve the live page on 127.0.0.1:{first.port}"
        ):
            LiveServer(WebChoice(port=first.port or 0), "second").start()
