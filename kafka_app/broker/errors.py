"""Kafka's error codes the embedded broker answers with, and its typed errors, each carrying one.

`ErrorCode` is the broker's one table of codes, named as Kafka's `Errors` names them: the
coordinator answers with its members directly, every error class here takes its code from it.
The server turns a raised error into its code on the wire; the CLI edge prints its message as
one line. Usage: `raise UnknownTopicOrPartition(f"no partition {topic}-{p}")`.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "ErrorCode",
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
    "InvalidRequest",
    "TransactionsUnsupported",
    "PolicyViolation",
    "KafkaStorageError",
    "IllegalGroupTransition",
]


class ErrorCode(IntEnum):
    """Kafka's error codes (org.apache.kafka.common.protocol.Errors) that this broker uses."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    OFFSET_OUT_OF_RANGE = 1
    CORRUPT_MESSAGE = 2
    UNKNOWN_TOPIC_OR_PARTITION = 3
    MESSAGE_TOO_LARGE = 10
    OFFSET_METADATA_TOO_LARGE = 12
    NOT_COORDINATOR = 16
    INVALID_TOPIC_EXCEPTION = 17
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    TOPIC_ALREADY_EXISTS = 36
    INVALID_PARTITIONS = 37
    INVALID_REPLICATION_FACTOR = 38
    INVALID_REPLICA_ASSIGNMENT = 39
    INVALID_CONFIG = 40
    INVALID_REQUEST = 42
    POLICY_VIOLATION = 44
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45
    INVALID_PRODUCER_EPOCH = 47
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
    KAFKA_STORAGE_ERROR = 56
    GROUP_ID_NOT_FOUND = 69
    MEMBER_ID_REQUIRED = 79
    INVALID_RECORD = 87


# Characters of an error message kept (4 bytes each at most in UTF-8: far below int16's 32767).
MAX_MESSAGE_CHARS = 1000


class BrokerError(Exception):
    """Base of every broker error; `error_code` is Kafka's, `retriable` tells a client to retry."""

    error_code: int = ErrorCode.UNKNOWN_SERVER_ERROR
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

    error_code = ErrorCode.OFFSET_OUT_OF_RANGE

    def __init__(self, message: str, log_start_offset: int = -1, high_watermark: int = -1) -> None:
        super().__init__(message)
        # For the message and callers; a Fetch answer carries -1 for both, as Kafka's does.
        self.log_start_offset = log_start_offset
        self.high_watermark = high_watermark


class CorruptRecord(BrokerError):
    """A record batch failed its CRC, is truncated, or is not magic v2."""

    error_code = ErrorCode.CORRUPT_MESSAGE
    retriable = True


class UnknownTopicOrPartition(BrokerError):
    """The topic or partition does not exist on this broker."""

    error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    retriable = True


class RecordTooLarge(BrokerError):
    """A batch is larger than the topic's max.message.bytes."""

    error_code = ErrorCode.MESSAGE_TOO_LARGE


class InvalidTopic(BrokerError):
    """The topic name breaks Kafka's rules (letters, digits, '.', '_', '-', at most 249 chars)."""

    error_code = ErrorCode.INVALID_TOPIC_EXCEPTION


class TopicAlreadyExists(BrokerError):
    """CreateTopics named a topic that exists already."""

    error_code = ErrorCode.TOPIC_ALREADY_EXISTS


class InvalidPartitions(BrokerError):
    """The partition count is not a positive number."""

    error_code = ErrorCode.INVALID_PARTITIONS


class InvalidReplicationFactor(BrokerError):
    """A single-node broker can only hold replication factor 1 (or -1, the default)."""

    error_code = ErrorCode.INVALID_REPLICATION_FACTOR


class InvalidReplicaAssignment(BrokerError):
    """A manual replica assignment Kafka refuses: partitions not 0..n-1, an empty or repeated
    replica, or a broker that does not exist (here: anything but broker 0)."""

    error_code = ErrorCode.INVALID_REPLICA_ASSIGNMENT


class InvalidConfig(BrokerError):
    """A topic config key is unknown or its value is not acceptable; the message names the key."""

    error_code = ErrorCode.INVALID_CONFIG


class StorageCorrupt(BrokerError):
    """The data folder cannot be opened as it is (a damaged sealed segment, a bad topics.json).

    Raised only while the broker starts; the message names the file and what to do with it.
    """

    error_code = ErrorCode.KAFKA_STORAGE_ERROR


class OutOfOrderSequence(BrokerError):
    """An idempotent producer's batch does not follow its last written sequence number."""

    error_code = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


class InvalidProducerEpoch(BrokerError):
    """A batch carries an older epoch than its producer id already wrote with (a zombie)."""

    error_code = ErrorCode.INVALID_PRODUCER_EPOCH


class InvalidRecord(BrokerError):
    """A batch's header contradicts its content (record count, offsets, attributes, sequence)."""

    error_code = ErrorCode.INVALID_RECORD


class OffsetMetadataTooLarge(BrokerError):
    """An OffsetCommit's metadata string is longer than offset.metadata.max.bytes (4096)."""

    error_code = ErrorCode.OFFSET_METADATA_TOO_LARGE


class InvalidRequest(BrokerError):
    """A request that asks something contradictory (a topic named twice: an error code in the
    answer), or breaks the protocol (a length past the end of the frame, a null where none is
    allowed, an over-long varint: Kafka closes the connection that sent it)."""

    error_code = ErrorCode.INVALID_REQUEST


class TransactionsUnsupported(BrokerError):
    """A transactional producer: this broker has no transaction coordinator.

    Kafka's TRANSACTIONAL_ID_AUTHORIZATION_FAILED: both kafka-python and librdkafka treat it as
    fatal at once, so `init_transactions()` fails with this message instead of retrying for a
    minute against a coordinator that will never come.
    """

    error_code = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


class PolicyViolation(BrokerError):
    """A request the broker's limits refuse as a whole (Kafka: more than 10,000 partitions
    in one CreateTopics, or past the broker-wide partition cap)."""

    error_code = ErrorCode.POLICY_VIOLATION


class KafkaStorageError(BrokerError):
    """A write to the data folder failed (disk full, I/O error), or the folder is offline since one
    did (dir_failure.py). Retriable, as in Kafka: the client retries until the broker restarts."""

    error_code = ErrorCode.KAFKA_STORAGE_ERROR
    retriable = True


class IllegalGroupTransition(BrokerError):
    """A consumer group asked to move to a state Kafka does not allow from its current one: a bug
    in the coordinator, as Kafka's IllegalStateException is (the client sees an unknown error)."""
