"""The Spark app's errors: each says what went wrong and what to do about it.

Errors raised inside our Kafka source run in Python worker processes that Spark starts, so they
reach the driver wrapped in Py4J/PySpark exceptions whose text contains our traceback. Every
error here therefore puts a stable `token` at the start of its message; `unwrap` finds the
token and message again in the wrapped text, so the CLI can still print one clear line.

Usage: `raise DataLossError(topic="Experience", partition=0, start=120, end=300)`
"""

from __future__ import annotations

import re

__all__ = [
    "SparkAppError",
    "JavaMissingError",
    "KafkaUnreachableError",
    "DataLossError",
    "CheckpointError",
    "StateSchemaChangedError",
    "OffsetsSpecError",
    "GroupOffsetsError",
    "StreamFailedError",
    "SparkVersionError",
    "ClusterError",
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
        super().__init__(f"{self.token}: {message}" if not message.startswith(self.token) else message)


class SparkVersionError(SparkAppError):
    """The installed PySpark is outside the range this app supports."""

    token = "SPARK_VERSION_UNSUPPORTED"


class ClusterError(SparkAppError):
    """The standalone cluster's Master or a Worker did not start."""

    token = "CLUSTER_FAILED"


class JavaMissingError(SparkAppError):
    """No Java, or one older than 17, which Spark 4 needs."""

    token = "JAVA_MISSING"


class KafkaUnreachableError(SparkAppError):
    """No Kafka broker answered at the configured address."""

    token = "KAFKA_UNREACHABLE"
    retriable = True

    @classmethod
    def at(cls, bootstrap_servers: str, detail: str = "") -> "KafkaUnreachableError":
        why = f" ({detail})" if detail else ""
        return cls(f"no Kafka broker answers at {bootstrap_servers}{why}. Start one with "
                   f"`python -m kafka_app` or pass --bootstrap-servers HOST:PORT.")


class DataLossError(SparkAppError):
    """Offsets the query must read are no longer in Kafka (modelled on Spark's error class)."""

    token = "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"

    @classmethod
    def for_range(cls, topic: str, partition: int, start: int, end: int,
                  earliest: int | None = None) -> "DataLossError":
        seen = f"; Kafka's earliest offset is now {earliest}" if earliest is not None else ""
        return cls(
            f"data may have been lost: offsets [{start}, {end}) of topic partition "
            f"{topic}-{partition} are no longer in Kafka{seen} (aged out by retention, deleted, "
            f"or the topic was recreated). To go on without them restart with "
            f"--fail-on-data-loss false; to start over delete the checkpoint folder.")


class CheckpointError(SparkAppError):
    """The checkpoint folder cannot be read, or does not fit this query."""

    token = "CHECKPOINT_UNUSABLE"


class StateSchemaChangedError(CheckpointError):
    """Spark refused the checkpoint because the state it holds has another schema than this code's."""

    token = "CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED"


class OffsetsSpecError(SparkAppError):
    """A --starting-offsets value that is neither earliest, latest nor offsets JSON."""

    token = "BAD_STARTING_OFFSETS"
    exit_code = 2


class StreamFailedError(SparkAppError):
    """The streaming query stopped with an error we have no specific advice for."""

    token = "STREAM_FAILED"


class GroupOffsetsError(SparkAppError):
    """Kafka refused to store or return the offsets of --offsets-from-group's consumer group."""

    token = "GROUP_OFFSETS"


_ERRORS: dict[str, type[SparkAppError]] = {
    cls.token: cls for cls in (JavaMissingError, KafkaUnreachableError, DataLossError,
                               CheckpointError, StateSchemaChangedError, OffsetsSpecError,
                               GroupOffsetsError, SparkVersionError, ClusterError,
                               StreamFailedError)
}
# Longest first, so CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED is not read as CHECKPOINT_UNUSABLE.
_TOKEN_LINE = re.compile(
    r"(?:spark_app\.errors\.\w+: )?("
    + "|".join(re.escape(t) for t in sorted(_ERRORS, key=len, reverse=True)) + r"): ([^\n]*)")


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
