"""An embedded Kafka-protocol broker with Kafka's retention rules, for the offline playground.

Real Kafka clients (kafka-python, confluent-kafka, kcat) talk to it unchanged.
Usage:
    with EmbeddedBroker(BrokerSettings(port=0, data_dir=Path("kafka-data"))) as broker:
        print(broker.bootstrap_servers)
"""

from kafka_app.broker.embedded import BrokerStartTimeout, EmbeddedBroker
from kafka_app.broker.errors import (
    BrokerError,
    CorruptRecord,
    InvalidConfig,
    InvalidPartitions,
    InvalidReplicationFactor,
    InvalidTopic,
    OffsetOutOfRange,
    RecordTooLarge,
    TopicAlreadyExists,
    UnknownTopicOrPartition,
)
from kafka_app.broker.server import PortInUse
from kafka_app.broker.settings import BrokerSettings

__all__ = [
    "BrokerSettings",
    "EmbeddedBroker",
    "BrokerError",
    "BrokerStartTimeout",
    "PortInUse",
    "CorruptRecord",
    "InvalidConfig",
    "InvalidPartitions",
    "InvalidReplicationFactor",
    "InvalidTopic",
    "OffsetOutOfRange",
    "RecordTooLarge",
    "TopicAlreadyExists",
    "UnknownTopicOrPartition",
]
