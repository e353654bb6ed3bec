"""Typed errors of the embedded broker, each carrying the Kafka error code it maps to.

The server turns a raised error into the matching error code on the wire; the CLI edge prints its
message as one line. Usage: `raise UnknownTopicOrPartition(f"no partition {topic}-{p}")`.
"""

from __future__ import annotations

__all__ = [
    "BrokerError",
    "OffsetOutOfRange",
    "CorruptRecord",
    "UnknownTopicOrPartition",
    "InvalidTopic",
    "RecordTooLarge",
    "TopicAlreadyExists",
    "InvalidPartitions",
    "InvalidReplicationFactor",
    "InvalidReplicaAssignment",
    "InvalidConfig",
    "StorageCorrupt",
    "OutOfOrderSequence",
    "InvalidProducerEpoch",
    "InvalidRecord",
    "OffsetMetadataTooLarge",
    "InvalidReplicaAssignment",
    "InvalidRequest",
    "TransactionsUnsupported",
    "PolicyViolation",
    "KafkaStorageError",
]


# Characters of an error message kept (4 bytes each at most in UTF-8: far below int16's 32767).
MAX_MESSAGE_CHARS = 1000


class BrokerError(Exception):
    """Base of every broker error; `error_code` is Kafka's, `retriable` tells a client to retry."""

    error_code: int = -1  # UNKNOWN_SERVER_ERROR
    retriable: bool = False

    def __init__(self, message: str) -> None:
        # Messages quote what the client sent (a topic name of up to 32767 bytes), and they go
        # back on the wire as int16-length strings: clipped, a long name cannot break the answer.
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS] + "..."
        super().__init__(message)
        self.message = message


class OffsetOutOfRange(BrokerError):
    """A read or DeleteRecords asked for an offset outside [log start offset, high watermark]."""

    error_code = 1

    def __init__(self, message: str, log_start_offset: int = -1, high_watermark: int = -1) -> None:
        super().__init__(message)
        # Clients (librdkafka) reset from these without asking ListOffsets, so the server echoes them.
        self.log_start_offset = log_start_offset
        self.high_watermark = high_watermark


class CorruptRecord(BrokerError):
    """A record batch failed its CRC, is truncated, or is not magic v2."""

    error_code = 2
    retriable = True


class UnknownTopicOrPartition(BrokerError):
    """The topic or partition does not exist on this broker."""

    error_code = 3
    retriable = True


class RecordTooLarge(BrokerError):
    """A batch is larger than the topic's max.message.bytes."""

    error_code = 10


class InvalidTopic(BrokerError):
    """The topic name breaks Kafka's rules (letters, digits, '.', '_', '-', at most 249 chars)."""

    error_code = 17


class TopicAlreadyExists(BrokerError):
    """CreateTopics named a topic that exists already."""

    error_code = 36


class InvalidPartitions(BrokerError):
    """The partition count is not a positive number."""

    error_code = 37


class InvalidReplicationFactor(BrokerError):
    """A single-node broker can only hold replication factor 1 (or -1, the default)."""

    error_code = 38


class InvalidReplicaAssignment(BrokerError):
    """A manual replica assignment Kafka refuses: partitions not 0..n-1, an empty or repeated
    replica, or a broker that does not exist (here: anything but broker 0)."""

    error_code = 39


class InvalidConfig(BrokerError):
    """A topic config key is unknown or its value is not acceptable; the message names the key."""

    error_code = 40


class StorageCorrupt(BrokerError):
    """The data folder cannot be opened as it is (a damaged sealed segment, a bad topics.json).

    Raised only while the broker starts; the message names the file and what to do with it.
    """

    error_code = 56  # KAFKA_STORAGE_ERROR


class OutOfOrderSequence(BrokerError):
    """An idempotent producer's batch does not follow its last written sequence number."""

    error_code = 45


class InvalidProducerEpoch(BrokerError):
    """A batch carries an older epoch than its producer id already wrote with (a zombie)."""

    error_code = 47


class InvalidRecord(BrokerError):
    """A batch's header contradicts its content (record count, offsets, attributes, sequence)."""

    error_code = 87


class OffsetMetadataTooLarge(BrokerError):
    """An OffsetCommit's metadata string is longer than offset.metadata.max.bytes (4096)."""

    error_code = 12


class InvalidReplicaAssignment(BrokerError):
    """A manual partition assignment that one node cannot hold (only broker 0, one replica)."""

    error_code = 39


class InvalidRequest(BrokerError):
    """A request that asks something contradictory (a topic named twice: an error code in the
    answer), or breaks the protocol (a length past the end of the frame, a null where none is
    allowed, an over-long varint: Kafka closes the connection that sent it)."""

    error_code = 42


class TransactionsUnsupported(BrokerError):
    """A transactional producer: this broker has no transaction coordinator.

    Kafka's TRANSACTIONAL_ID_AUTHORIZATION_FAILED: both kafka-python and librdkafka treat it as
    fatal at once, so `init_transactions()` fails with this message instead of retrying for a
    minute against a coordinator that will never come.
    """

    error_code = 53


class PolicyViolation(BrokerError):
    """A request the broker's limits refuse as a whole (Kafka: more than 10,000 partitions
    in one CreateTopics, or past the broker-wide partition cap)."""

    error_code = 44


class KafkaStorageError(BrokerError):
    """A write to the data folder failed (disk full, I/O error), or the folder is offline since one
    did (dir_failure.py). Retriable, as in Kafka: the client retries until the broker restarts."""

    error_code = 56
    retriable = True
