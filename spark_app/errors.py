"""The Spark app's errors: each says what went wrong and what to do about it.

Errors raised inside our Kafka source run in Python worker processes that Spark starts, so they
reach the driver wrapped in Py4J/PySpark exceptions whose text contains our traceback. Every
error here therefore puts a stable `token` at the start of its message; `unwrap` finds the
token and message again in the wrapped text, so the CLI can still print one clear line.

Usage: `raise KafkaUnreachableError.at("127.0.0.1:9092")`; `unwrap(py4j_error)`
"""

from __future__ import annotations

import re

__all__ = [
    "SparkAppError",
    "JavaMissingError",
    "KafkaUnreachableError",
    "DataLossError",
    "CouldNotReadOffsetRangeError",
    "PartitionOffsetChangedError",
    "AddedPartitionNotFromZeroError",
    "PartitionsDeletedError",
    "InitialOffsetNotFoundError",
    "SourceOptionError",
    "CheckpointError",
    "CheckpointStoreError",
    "CheckpointStoreLostError",
    "CheckpointDiskFullError",
    "StateSchemaChangedError",
    "TornFileError",
    "StateStoreOptionError",
    "ConnectorUnavailableError",
    "GroupOffsetsError",
    "QueryModuleError",
    "StreamFailedError",
    "SparkVersionError",
    "ClusterError",
    "AppRunningError",
    "CheckpointSharedError",
    "NotACheckpointError",
    "StateRepartitionError",
    "RepartitionLastBatchFailedError",
    "RepartitionUnsupportedProviderError",
    "RepartitionUnsupportedOperatorError",
    "RepartitionUnavailableError",
    "RealTimeDurationError",
    "RealTimeUnavailableError",
    "RealTimeRefusedError",
    "ConnectClientMissingError",
    "unwrap",
    "error_in_text",
]


class SparkAppError(Exception):
    """Base of the app's errors; `str()` is the one line the CLI prints, with the remedy."""

    token = "SPARK_APP_ERROR"
    exit_code = 1
    # True when the same run may succeed later without anyone changing anything (Kafka back).
    retriable = False

    def __init__(self, message: str) -> None:
        super().__init__(
            f"{self.token}: {message}" if not message.startswith(self.token) else message
        )


class SparkVersionError(SparkAppError):
    """The installed PySpark is outside the range this app supports."""

    token = "SPARK_VERSION_UNSUPPORTED"


class ClusterError(SparkAppError):
    """The standalone cluster's Master or a Worker did not start."""

    token = "CLUSTER_FAILED"


class AppRunningError(SparkAppError):
    """`reset` on the checkpoint of an app that runs: it would go on writing into it."""

    token = "APP_RUNNING"


class NotACheckpointError(SparkAppError):
    """`reset` on a folder that holds what Spark does not write in a checkpoint."""

    token = "NOT_A_CHECKPOINT"
    exit_code = 2


class CheckpointStoreError(SparkAppError):
    """--checkpoint-store's URL is malformed, or the store does not answer there."""

    token = "CHECKPOINT_STORE"
    exit_code = 2


class CheckpointStoreLostError(CheckpointStoreError):
    """The checkpoint store stopped answering while the query ran: a checkpoint write or read
    failed once the store's client gave up (S3A after minutes of retries, HDFS's IPC client at
    once on a reset call). The checkpoint itself is intact, so the same run may succeed once
    the store is back."""

    token = "CHECKPOINT_STORE.UNREACHABLE"
    exit_code = 1
    retriable = True


class CheckpointDiskFullError(SparkAppError):
    """A checkpoint write failed because the disk under the checkpoint is full (ENOSPC)."""

    token = "CHECKPOINT_DISK_FULL"


class JavaMissingError(SparkAppError):
    """No Java, or one older than 17, which Spark 4 needs."""

    token = "JAVA_MISSING"


class KafkaUnreachableError(SparkAppError):
    """No Kafka broker answered at the configured address."""

    token = "KAFKA_UNREACHABLE"
    retriable = True

    @classmethod
    def at(cls, bootstrap_servers: str, detail: str = "") -> KafkaUnreachableError:
        why = f" ({detail})" if detail else ""
        return cls(
            f"no Kafka broker answers at {bootstrap_servers}{why}. Start one with "
            f"`python -m kafka_app` or pass --bootstrap-servers HOST:PORT."
        )


class DataLossError(SparkAppError):
    """Offsets the query must read are no longer in Kafka: Spark's KAFKA_DATA_LOSS conditions.

    Each subclass is one of the connector's sub-conditions; data_loss.py builds their messages.
    """

    token = "KAFKA_DATA_LOSS"


class CouldNotReadOffsetRangeError(DataLossError):
    """A task could not read part of its range: it is below Kafka's log start (executor side)."""

    token = "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"


class PartitionOffsetChangedError(DataLossError):
    """A partition's latest offset is below where the query is (topic recreated; planning)."""

    token = "KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED"


class AddedPartitionNotFromZeroError(DataLossError):
    """A partition appeared whose first offset is not 0 (planning)."""

    token = "KAFKA_DATA_LOSS.ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO"


class PartitionsDeletedError(DataLossError):
    """Partitions the query was reading are gone (planning)."""

    token = "KAFKA_DATA_LOSS.PARTITIONS_DELETED"


class InitialOffsetNotFoundError(DataLossError):
    """A new partition vanished before its first offset could be looked up (planning)."""

    token = "KAFKA_DATA_LOSS.INITIAL_OFFSET_NOT_FOUND_FOR_PARTITIONS"


class ConnectorUnavailableError(SparkAppError):
    """`--source spark-kafka` on a machine where Spark cannot fetch its Kafka connector."""

    token = "KAFKA_CONNECTOR_UNAVAILABLE"


class SourceOptionError(SparkAppError):
    """An option of the Kafka source that Spark's connector would refuse, with its words."""

    token = "KAFKA_SOURCE_OPTION"
    exit_code = 2


class CheckpointError(SparkAppError):
    """The checkpoint folder cannot be read, or does not fit this query."""

    token = "CHECKPOINT_UNUSABLE"


class StateSchemaChangedError(CheckpointError):
    """Spark refused the checkpoint because the state it holds has another schema than this code's."""

    token = "CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED"


class TornFileError(CheckpointError):
    """A checkpoint file Spark wrote is empty or cut short: a write torn by a crash of the
    machine (a power loss), since the file system had not flushed it. The remedy depends on
    which file it is (spark_app/checkpoint/torn.py), so the line says which."""

    token = "CHECKPOINT_UNUSABLE.TORN_FILE"


class CheckpointSharedError(SparkAppError):
    """Another query wrote a batch's offsets/N or commits/N of this checkpoint first: two apps
    run on one checkpoint (checkpoint-moved-and-shared). The checkpoint is sound; "delete the
    folder" would be the wrong advice, so this is not a CheckpointError."""

    token = "CHECKPOINT_SHARED"


class StateStoreOptionError(SparkAppError):
    """A state store, checkpoint format or counter this Spark refuses (or would silently
    ignore), said before Spark starts; in Spark's words where Spark itself refuses it."""

    token = "STATE_STORE_OPTION"
    exit_code = 2


class StreamFailedError(SparkAppError):
    """The streaming query stopped with an error we have no specific advice for."""

    token = "STREAM_FAILED"


class QueryModuleError(SparkAppError):
    """A user's query module (--query FILE.py) that cannot run: the file, what is wrong and
    what to change. Bad input: exit code 2, before any Kafka is read."""

    token = "QUERY_MODULE"
    exit_code = 2


class GroupOffsetsError(SparkAppError):
    """Kafka refused to store or return the offsets of --offsets-from-group's consumer group."""

    token = "GROUP_OFFSETS"


class StateRepartitionError(SparkAppError):
    """`repartition-state` refused: the checkpoint cannot be repartitioned as it is. Spark's
    error class is quoted; the subclasses are the refusals a user meets and can act on, their
    token Spark's own class (STATE_REPARTITION_INVALID_CHECKPOINT.…)."""

    token = "STATE_REPARTITION_REFUSED"


class RepartitionLastBatchFailedError(StateRepartitionError):
    """The newest batch was planned (offsets/N) but never committed: a crash, a kill -9, or a
    stop that left the next batch planned."""

    token = "STATE_REPARTITION_INVALID_CHECKPOINT.LAST_BATCH_FAILED"


class RepartitionUnsupportedProviderError(StateRepartitionError):
    """The state is kept by a store Spark cannot repartition (the HDFS-backed one)."""

    token = "STATE_REPARTITION_INVALID_CHECKPOINT.UNSUPPORTED_PROVIDER"


class RepartitionUnsupportedOperatorError(StateRepartitionError):
    """A stateful operator Spark cannot repartition (e.g. a streaming limit)."""

    token = "STATE_REPARTITION_INVALID_CHECKPOINT.UNSUPPORTED_STATEFUL_OPERATOR"


class RepartitionUnavailableError(SparkAppError):
    """This PySpark has no offline state repartition (it came with 4.2.0)."""

    token = "STATE_REPARTITION_UNAVAILABLE"


class RealTimeUnavailableError(SparkAppError):
    """`--trigger real-time` where it cannot run: a PySpark before 4.2, or a duration under
    Real-time Mode's minimum."""

    token = "REAL_TIME_MODE_UNAVAILABLE"


class RealTimeDurationError(RealTimeUnavailableError):
    """--real-time-sec under Real-time Mode's minimum: bad input, so exit 2 (a line before
    4.2 is this machine's PySpark, not the command: exit 1)."""

    exit_code = 2


class ConnectClientMissingError(SparkAppError):
    """`--connect` in an environment without Spark Connect's client (PySpark's `connect`
    extra: grpcio and its kin)."""

    token = "SPARK_CONNECT_CLIENT_MISSING"


class RealTimeRefusedError(SparkAppError):
    """Spark refused the query in Real-time Mode (its class quoted): an operator or a sink
    outside the allowlist, or an option the mode does not take."""

    token = "REAL_TIME_MODE_REFUSED"


_ERRORS: dict[str, type[SparkAppError]] = {
    cls.token: cls
    for cls in (
        JavaMissingError,
        KafkaUnreachableError,
        DataLossError,
        CouldNotReadOffsetRangeError,
        PartitionOffsetChangedError,
        AddedPartitionNotFromZeroError,
        PartitionsDeletedError,
        InitialOffsetNotFoundError,
        QueryModuleError,
        SourceOptionError,
        ConnectorUnavailableError,
        CheckpointError,
        StateSchemaChangedError,
        TornFileError,
        CheckpointStoreLostError,
        CheckpointDiskFullError,
        CheckpointSharedError,
        GroupOffsetsError,
        StateRepartitionError,
        RepartitionLastBatchFailedError,
        RepartitionUnsupportedProviderError,
        RepartitionUnsupportedOperatorError,
        RepartitionUnavailableError,
        RealTimeDurationError,
        RealTimeUnavailableError,
        RealTimeRefusedError,
        AppRunningError,
        SparkVersionError,
        ClusterError,
        StateStoreOptionError,
        StreamFailedError,
    )
}
# Longest first, so CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED is not read as CHECKPOINT_UNUSABLE.
_TOKEN_LINE = re.compile(
    r"(?:spark_app\.errors\.\w+: )?("
    + "|".join(re.escape(t) for t in sorted(_ERRORS, key=len, reverse=True))
    + r"): ([^\n]*)"
)


def unwrap(error: BaseException) -> SparkAppError | None:
    """Our error hidden in a Spark/Py4J exception's text, rebuilt; None when there is none."""
    if isinstance(error, SparkAppError):
        return error
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = error_in_text(str(current))
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


def error_in_text(text: str) -> SparkAppError | None:
    """Our error in a text, e.g. the app's last stderr line `spark_app: KAFKA_UNREACHABLE: ...`."""
    match = _TOKEN_LINE.search(text)
    if match is None:
        return None
    token, message = match.group(1), match.group(2).strip()
    return _ERRORS[token](f"{token}: {message}")
