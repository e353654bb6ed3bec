"""A broker under test, of either kind: the embedded broker or Apache Kafka.

`RunningBroker` is what the `kafka_broker` fixture (conftest.py) yields; `own_broker` starts one
of a test's own, for settings the shared ones do not have.

Usage: `with own_broker(broker_kind, settings) as broker: create_topic(broker.bootstrap_servers, "t")`
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.handlers.context import NODE_ID

__all__ = ["APACHE_NODE_ID", "RunningBroker", "own_broker"]

APACHE_NODE_ID = 1  # KRaft node ids of our Apache Kafka start at 1 (kafka_app/apache/cluster.py)


@dataclass(frozen=True)
class RunningBroker:
    kind: str
    bootstrap_servers: str
    port: int
    node_id: int  # 0 for the embedded broker, APACHE_NODE_ID for Apache Kafka


@contextmanager
def own_broker(kind: str, settings: BrokerSettings) -> Iterator[RunningBroker]:
    """A broker of `kind` of the test's own, for settings the shared ones do not have (Apache
    Kafka: a JVM start, 12-30 s here)."""
    if kind == "embedded":
        with EmbeddedBroker(settings) as embedded:
            yield RunningBroker(kind, embedded.bootstrap_servers, embedded.port, NODE_ID)
        return
    from kafka_app.apache.cluster import ApacheKafka

    with ApacheKafka(settings, progress=False) as kafka:
        yield RunningBroker(kind, kafka.bootstrap_servers, kafka.port, APACHE_NODE_ID)
