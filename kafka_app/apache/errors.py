"""Errors of Apache Kafka run as a child: each `str()` is the one line the CLI prints.

They derive from the embedded broker's BrokerError, so every place that already turns a broker
that cannot run into one line (the producer app, `python -m kafka_app broker`) does so for
Apache Kafka too. Usage: `raise KafkaStartFailed("Kafka node 1 exited with code 1 ...")`.
"""

from __future__ import annotations

from kafka_app.broker.errors import BrokerError

__all__ = ["ApacheKafkaError", "KafkaStartFailed", "DataDirMismatch", "PortBusy"]


class ApacheKafkaError(BrokerError):
    """Apache Kafka could not be prepared, started or stopped."""


class KafkaStartFailed(ApacheKafkaError):
    """The JVM died, or did not answer ApiVersions, while starting."""


class DataDirMismatch(ApacheKafkaError):
    """The data folder holds another cluster's Kafka data, or something that is not Kafka's."""


class PortBusy(ApacheKafkaError):
    """Something else listens on a port Kafka needs."""
