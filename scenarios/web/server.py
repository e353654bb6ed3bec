"""The live page's server: aiohttp on an event loop in a thread of its own, beside the demo or run.

Why aiohttp (3.14, pinned): one package gives the server, server-sent events as a plain
streaming response and a clean stop, with no ASGI server to add. `http.server` would hold a
thread per watching tab for as long as it watches (an SSE stream never ends), has no Host
checks of its own and cannot close the streams it has open when the demo quits; here twenty
tabs are twenty coroutines on one loop, and `stop()` ends every stream and frees the port
before it returns. The browser needs nothing but EventSource: no JavaScript build step.

What it serves: `/` (the page, whole, with the newest fragment in it: it reads without script),
`/page.js`, `/events` (each new fragment, as it is published) and `POST /step` (the Enter of
`--guided`, the page's only write: from this machine only, with the token the terminal printed).
Every request naming another Host than ours is refused (guard.py). Reloading, closing or opening
tabs changes nothing but the set of streams; nothing a tab does reaches the run except a step.

Usage:
    with LiveServer(WebChoice(), "demo") as server:
        print(server.url)
        server.publish("<p>…</p>")   # from any thread
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import secrets
import threading
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Protocol

from aiohttp import web

from scenarios.web.guard import host_allowed, peer_is_loopback
from scenarios.web.options import LOOPBACK, WebChoice
from scenarios.web.view import TEMPLATES, render_page

__all__ = ["LiveServer", "Stepper", "WebServerError"]

# A comment line every so often: a tab that went away without closing is noticed, and proxies
# and browsers keep the stream open.
KEEP_ALIVE_SEC = 15.0
START_TIMEOUT_SEC = 10.0
STOP_TIMEOUT_SEC = 5.0
# Scripts from our own address only, nothing fetched elsewhere; no framing of the step button.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; connect-src 'self'; "
        "style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class WebServerError(Exception):
    """The page could not be served (its port taken, its address not ours)."""


class Stepper(Protocol):
    """What runs a waiting step when the page asks: None when it did, else why not."""

    def release(self, step: int) -> str | None: ...


class LiveServer:
    """The page's server; a context manager whose stop ends every open stream."""

    def __init__(self, choice: WebChoice, title: str, stepper: Stepper | None = None) -> None:
        self.choice = choice
        self.title = title
        self.token = secrets.token_urlsafe(18)
        self._stepper = stepper
        self._fragment = "<p>waiting for the first look…</p>"
        self._version = 0
        self._closing = False
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._script = (TEMPLATES / "page.js").read_bytes()

    # -- what the terminal prints ---------------------------------------------------------------
    @property
    def url(self) -> str:
        host = LOOPBACK if not self.choice.open_to_network else self.choice.host
        if host in ("0.0.0.0", "::"):
            host = LOOPBACK  # this machine's own way in; the room uses its network address
        return f"http://{host}:{self.port}/"

    @property
    def step_url(self) -> str:
        """The address that can step the run: the token rides in the fragment, which the
        browser never sends anywhere."""
        return f"http://{LOOPBACK}:{self.port}/#token={self.token}"

    # -- life cycle -----------------------------------------------------------------------------
    def start(self) -> LiveServer:
        if self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._serve, name="live-page", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_SEC):
            raise WebServerError(f"the live page did not start within {START_TIMEOUT_SEC:.0f} s")
        if self._failure is not None:
            self._thread.join(timeout=STOP_TIMEOUT_SEC)
            self._thread = None
            where = f"{self.choice.host}:{self.choice.port or 'a free port'}"
            raise WebServerError(f"cannot serve the live page on {where}: {self._failure}")
        return self

    def stop(self) -> None:
        """End every stream, free the port, stop the loop's thread (idempotent)."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(STOP_TIMEOUT_SEC)
        except (concurrent.futures.TimeoutError, RuntimeError):
            pass  # the loop is gone already, or a stream would not end: the thread is a daemon
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=STOP_TIMEOUT_SEC)
        self._thread = None

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what the page shows --------------------------------------------------------------------
    def publish(self, fragment: str) -> None:
        """Show `fragment` to every tab (from any thread); the same one again sends nothing."""
        loop = self._loop
        if loop is not None and not self._closing:
            loop.call_soon_threadsafe(self._take, fragment)

    @property
    def fragment(self) -> str:
        return self._fragment

    def _take(self, fragment: str) -> None:
        if fragment == self._fragment:
            return
        self._fragment, self._version = fragment, self._version + 1
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        if changed is not None:
            changed.set()

    # -- the loop's side --------------------------------------------------------------------------
    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open())
        except (OSError, ValueError) as error:  # the port is taken, the address is not ours
            self._failure = error
            self._ready.set()
            loop.close()
            return
        self._loop = loop
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _open(self) -> None:
        self._changed = asyncio.Event()
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/", self._page)
        app.router.add_get("/page.js", self._script_file)
        app.router.add_get("/events", self._events)
        app.router.add_post("/step", self._step)
        # No access log: a page polled by twenty tabs would fill the terminal.
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.choice.host, self.choice.port, reuse_address=True)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = self._runner.addresses[0][1]

    async def _shutdown(self) -> None:
        self._closing = True
        self._wake()  # every stream sees it is closing and ends
        if self._runner is not None:
            await self._runner.cleanup()

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        assert self.port is not None
        if not host_allowed(request.headers.get("Host"), self.choice.host, self.port):
            return web.Response(status=403, text="this page answers to its own address only\n")
        response = await handler(request)
        if not response.prepared:  # a stream set its own before it started
            response.headers.update(_HEADERS)
        return response

    async def _page(self, request: web.Request) -> web.Response:
        page = render_page(self._fragment, self.title)
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    async def _script_file(self, request: web.Request) -> web.Response:
        return web.Response(body=self._script, content_type="text/javascript", charset="utf-8")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", **_HEADERS, "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        seen = -1
        try:
            while not self._closing:
                changed = self._changed
                assert changed is not None
                if seen != self._version:
                    seen = self._version
                    await response.write(_event(self._fragment, seen))
                try:
                    await asyncio.wait_for(changed.wait(), KEEP_ALIVE_SEC)
                except asyncio.TimeoutError:
                    await response.write(b": still here\n\n")
        except ConnectionResetError:
            pass  # the tab went away: nothing to tell anyone
        return response

    async def _step(self, request: web.Request) -> web.Response:
        if self._stepper is None:
            return web.Response(status=404, text="nothing to step here\n")
        if not peer_is_loopback(request.remote):
            return web.Response(status=403, text="steps are taken from this machine only\n")
        given = request.headers.get("X-Step-Token", "")
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            return web.Response(status=403, text="open the address the terminal printed\n")
        try:
            step = int(json.loads(await request.text())["step"])
        except (ValueError, KeyError, TypeError):
            return web.Response(status=400, text='send {"step": N}\n')
        refused = self._stepper.release(step)
        if refused is not None:
            return web.Response(status=409, text=f"{refused}\n")
        return web.Response(status=204)


def _event(fragment: str, version: int) -> bytes:
    """One server-sent event: each line of the fragment as a `data:` line."""
    lines = "".join(f"data: {line}\n" for line in fragment.split("\n"))
    return f"id: {version}\n{lines}\n".encode()
