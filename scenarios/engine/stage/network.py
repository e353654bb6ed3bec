"""The stage's network between the app and Kafka: cut it, restore it.

It exists when Kafka was started with `behind_proxy=True`: the app then reaches Kafka only
through a proxy of ours (scenarios/engine/faults/tcp_proxy.py), while the producer writes
directly, so messages keep arriving during an outage.

Usage:
    stage.kafka.start(retention_sec=3600, behind_proxy=True)
    stage.network.cut()
    stage.network.restore()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scenarios.engine.faults.tcp_proxy import TcpProxy
from scenarios.errors import StepFailed

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["NetworkPart"]


class NetworkPart:
    """The link between the app and Kafka, as a fault the scenario injects."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage

    def _proxy(self) -> TcpProxy:
        proxy = self._stage.kafka.proxy
        if proxy is None:
            raise StepFailed(
                "the network can be cut only between the app and a Kafka started "
                "with stage.kafka.start(..., behind_proxy=True)"
            )
        return proxy

    def cut(self) -> None:
        self._proxy().cut()
        self._stage.timeline.event("network cut", "crash")
        self._stage.say("the network between the Spark app and Kafka is cut")

    def restore(self) -> None:
        self._proxy().restore()
        self._stage.timeline.event("network back", "start")
        self._stage.say("the network between the Spark app and Kafka is back")
