"""Apache Kafka itself, from Maven Central's jars, as managed child processes (`--kafka apache`).

One module per step: `jars` (fetch once), `config` (our settings as server.properties),
`storage` (cluster id, formatting), `node` (one Kafka node),
`readiness` (ApiVersions), `cluster` (one node or three), `cli` (`python -m kafka_app broker`).
See docs/apache-kafka.md.

Usage:
    with ApacheKafka(BrokerSettings(port=19092, data_dir=Path("kafka-data"))) as kafka:
        print(kafka.bootstrap_servers)
"""

from typing import Any

from kafka_app.apache.errors import ApacheKafkaError, DataDirMismatch, KafkaStartFailed, PortBusy

__all__ = ["ApacheKafka", "ApacheKafkaError", "DataDirMismatch", "KafkaStartFailed", "PortBusy"]


def __getattr__(name: str) -> Any:
    # Imported on first use, not with the package: `python -m kafka_app.apache.jars` (CI's
    # prefetch) would otherwise find its own module imported already, through cluster -> node,
    # and Python warns that it runs twice.
    if name == "ApacheKafka":
        from kafka_app.apache.cluster import ApacheKafka

        return ApacheKafka
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
