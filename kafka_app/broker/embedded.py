"""The broker as a context manager for in-process use: tests, scenarios, the producer app.

The server runs on its own asyncio loop in a background thread, so the calling code can use
ordinary blocking Kafka clients against it.
Usage:
    with EmbeddedBroker(BrokerSettings(port=0)) as broker:
        KafkaProducer(bootstrap_servers=broker.bootstrap_servers).send("Experience", b"1")
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import ParamSpec, TypeVar

from kafka_app.broker.errors import BrokerError
from kafka_app.broker.server import BrokerServer, advertised_host
from kafka_app.broker.settings import BrokerSettings
from kafka_app.broker.storage.data_dir import Storage
from kafka_app.resource import StartStop

__all__ = ["EmbeddedBroker", "BrokerStartTimeout"]

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
_START_TIMEOUT_SEC = 30.0
_STOP_TIMEOUT_SEC = 30.0


class BrokerStartTimeout(BrokerError):
    """The broker thread did not report ready in time (storage recovery stuck?)."""


class EmbeddedBroker(StartStop):
    """A running broker inside this process; start/stop are idempotent."""

    def __init__(self, settings: BrokerSettings | None = None) -> None:
        self.settings = settings or BrokerSettings()
        self._server: BrokerServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def port(self) -> int:
        return self._require_server().port

    @property
    def host(self) -> str:
        """The address clients dial (loopback when bound to every interface)."""
        return advertised_host(self.settings.host)

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self._require_server().data_dir

    @property
    def storage(self) -> Storage:
        """The broker's storage, for tests; it belongs to the broker thread, so use `call`."""
        server = self._require_server()
        assert server.ctx is not None
        return server.ctx.storage

    def call(self, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run `function` on the broker's loop thread (where storage lives) and return its result.

        E.g. `broker.call(broker.storage.topics)`: storage is single-threaded by design.
        """
        if self._loop is None:
            raise RuntimeError("the embedded broker is not running; use it inside `with`")

        async def on_loop() -> R:
            return function(*args, **kwargs)

        return asyncio.run_coroutine_threadsafe(on_loop(), self._loop).result(_STOP_TIMEOUT_SEC)

    def start(self) -> None:
        """Start the broker thread and wait until it listens; raises PortInUse and friends."""
        if self._thread is not None:
            return
        started: Future[None] = Future()
        self._server = BrokerServer(self.settings)
        self._thread = threading.Thread(
            target=self._run,
            args=(started,),
            name=f"kafka-broker-{self.settings.port}",
            daemon=True,
        )
        self._thread.start()
        try:
            started.result(timeout=_START_TIMEOUT_SEC)
        except FutureTimeout:
            self.stop()
            raise BrokerStartTimeout(
                f"broker did not start within {_START_TIMEOUT_SEC:.0f}s"
            ) from None
        except BaseException:
            self._join_thread()
            raise

    def stop(self) -> None:
        """Stop serving, close storage, end the thread."""
        if self._thread is None:
            return
        if self._loop is not None and self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._join_thread()

    def _join_thread(self) -> None:
        assert self._thread is not None
        deadline = time.monotonic() + _STOP_TIMEOUT_SEC
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            log.error("Broker thread did not end within %.0fs", _STOP_TIMEOUT_SEC)
        self._thread = None
        self._loop = None
        self._server = None

    def _run(self, started: Future[None]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        server = self._server
        assert server is not None
        try:
            loop.run_until_complete(server.start())
        except BaseException as error:  # handed to the starting thread, which re-raises it
            loop.run_until_complete(server.stop())
            loop.close()
            started.set_exception(error)
            return
        started.set_result(None)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(server.stop())
            loop.close()

    def _require_server(self) -> BrokerServer:
        if self._server is None or self._thread is None:
            raise RuntimeError("the embedded broker is not running; use it inside `with`")
        return self._server
