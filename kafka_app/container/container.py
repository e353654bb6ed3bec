"""One Kafka node in a container of our image, through testcontainers, ready when Kafka answers.

The container's port 9092 is published on 127.0.0.1 only, on a free port chosen first, and
Kafka is told to advertise that port (a client is sent back to the address it was told). The
wait is on Kafka itself: ApiVersions answered through the published port (as
kafka_app/apache/readiness.py asks), with the container's own last lines when it exits first.
Ryuk (testcontainers' reaper) is an image pulled from Docker Hub, which this project cannot
count on; it is off unless TESTCONTAINERS_RYUK_DISABLED says otherwise, and `stop` (the `with`
block's end) removes the container. Each container is labelled with the process that started
it, so the next start (and .ci/with-docker) removes what a process killed outright left, and
never a container of a process that still runs (another test run on the same machine).

Usage:
    with KafkaContainer(ensure_image()) as kafka:
        run_app("--bootstrap-servers", kafka.bootstrap_servers)
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from testcontainers.core.container import DockerContainer  # noqa: E402
from testcontainers.core.waiting_utils import WaitStrategy, WaitStrategyTarget  # noqa: E402

from kafka_app.apache.readiness import answers_api_versions  # noqa: E402
from kafka_app.container.errors import ContainerError  # noqa: E402
from kafka_app.container.image import KAFKA_PORT  # noqa: E402
from kafka_app.container.leftovers import CONTAINER_KIND, OURS_LABEL, PID_LABEL, remove_orphans  # noqa: E402

__all__ = ["KafkaAnswers", "KafkaContainer"]

_HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


class KafkaAnswers(WaitStrategy):
    """Ready when Kafka answers ApiVersions through the published port; fails at once when the
    container exits, with its last lines."""

    def __init__(self, port: int = KAFKA_PORT) -> None:
        super().__init__()
        self.port = port

    def wait_until_ready(self, container: WaitStrategyTarget) -> None:
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            wrapped = container.get_wrapped_container()
            wrapped.reload()
            if wrapped.status in ("exited", "dead"):
                lines = wrapped.logs(tail=5).decode(errors="replace").strip().splitlines()
                said = lines[-1] if lines else "it wrote nothing"
                raise ContainerError(f"Kafka's container exited while starting: {said}")
            port = int(container.get_exposed_port(self.port))
            if answers_api_versions(_HOST, port, timeout=1.0):
                return
            time.sleep(self._poll_interval)  # polling until the deadline above
        raise TimeoutError(
            f"Kafka in the container did not answer within {self._startup_timeout:.0f} s"
        )


class KafkaContainer(DockerContainer):
    """Our Kafka image as one container; `bootstrap_servers` is "127.0.0.1:PORT" once started."""

    def __init__(
        self,
        image: str,
        *,
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 120.0,
    ) -> None:
        super().__init__(image)
        self.port = port or _free_port()
        # (address, port): Docker publishes on that address only, never on all interfaces.
        # with_bind_ports takes a port alone (0.0.0.0), so the mapping docker-py passes on is set here.
        self.ports[str(KAFKA_PORT)] = (_HOST, self.port)  # type: ignore[assignment]
        self.with_env("KAFKA_ADVERTISED_LISTENERS", f"PLAINTEXT://{_HOST}:{self.port}")
        for key, value in (env or {}).items():
            self.with_env(key, value)
        self.with_kwargs(labels={OURS_LABEL: CONTAINER_KIND, PID_LABEL: str(os.getpid())})
        self.waiting_for(
            KafkaAnswers().with_startup_timeout(int(startup_timeout)).with_poll_interval(0.5)
        )

    @property
    def bootstrap_servers(self) -> str:
        return f"{_HOST}:{self.port}"

    def start(self) -> KafkaContainer:
        remove_orphans(self.get_docker_client().client)
        super().start()
        return self
