"""Whatever Spark raised, turned into one of the app's errors with its one-line advice.

The recognisers are tried in a fixed order, most specific first: a failure of ours wrapped by
Py4J, the connector's data loss and timeouts, Spark's known bugs, a second writer, refused Kafka
options, a refused state schema, then the storage under the checkpoint (a full disk or a store
gone is not a damaged checkpoint), state Spark cannot load, torn log files; what is left is a
checkpoint that does not fit the query when Spark's first lines say so, else STREAM_FAILED with
Spark's first and last words. A Python worker that did not start in time is the one failure the
run loop retries (`is_transient`).

Usage: `raise explain_failure(error, settings)`; `if is_transient(error): run the query again`
"""

from __future__ import annotations

from spark_app.errors import CheckpointError, SparkAppError, StreamFailedError, unwrap
from spark_app.failures import kafka, storage
from spark_app.failures.known_bugs import known_spark_bug
from spark_app.failures.real_time import real_time_refusal
from spark_app.failures.state_schema import find_schema_refusal
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.settings import SparkAppSettings

__all__ = ["explain_failure", "is_transient"]

# Words in Spark's own errors that mean "this checkpoint does not fit this query".
_CHECKPOINT_WORDS = (
    "STATE_STORE",
    "checkpoint",
    "Checkpoint",
    "INCOMPATIBLE",
    "StateSchema",
    "state schema",
    "CANNOT_LOAD_STATE_STORE",
    "MISSING_METADATA_FILE",
)

# Spark gives a Python worker a few seconds to start and connect back; on an overloaded machine
# importing pyspark can take longer. Nothing was committed, so running the query again from
# its checkpoint is safe.
_TRANSIENT_WORDS = (
    "Python worker failed to connect back",
    "EOFException occurred while reading the port number",
)


def is_transient(failure: BaseException) -> bool:
    """Whether the query may simply run again: Spark's Python worker did not start in time."""
    return unwrap(failure) is None and any(w in str(failure) for w in _TRANSIENT_WORDS)


def explain_failure(error: BaseException, settings: SparkAppSettings) -> SparkAppError:
    """Turn whatever Spark raised into one of our errors with its one-line advice."""
    ours = unwrap(error)
    if ours is not None:
        return ours
    text = str(error)
    named = (
        kafka.data_loss(text, settings)  # --source spark-kafka: named as ours names it
        or kafka.unreachable(text, settings)
        or known_spark_bug(text, settings, installed_spark_version())
        or real_time_refusal(text, settings)
        or storage.shared_checkpoint(text, settings)
        or kafka.options_refused(text)
    )
    if named is not None:
        return named
    # Only the message, not the Java stack trace: Spark's package names mention checkpoints too.
    message_lines = [line for line in text.splitlines() if not line.strip().startswith("at ")]
    refusal = find_schema_refusal("\n".join(message_lines[:6]))
    if refusal is not None:
        return refusal.error(settings.checkpoint.folder)
    # The storage under the checkpoint first: a state file or a log file that cannot be read
    # because the disk is full or the store is gone is not a damaged checkpoint.
    stored = (
        storage.disk_full(text, settings)
        or storage.store_lost(text, settings)
        or storage.state_unloadable(text, "\n".join(message_lines), settings)
        or storage.torn_log_file(text)
    )
    if stored is not None:
        return stored
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(error).__name__)
    if any(word in "\n".join(message_lines[:3]) for word in _CHECKPOINT_WORDS):
        return CheckpointError(
            f"the checkpoint in {settings.checkpoint.folder} cannot be used by this "
            f"query ({first[:300]}). Run the code that wrote it, or delete the "
            f"folder to start over (the count restarts)."
        )
    detail = " ".join(line.strip() for line in text.splitlines()[-3:] if line.strip())
    return StreamFailedError(
        f"{first[:300]} ... {detail[-300:]} (details in {settings.spark_log_file})"
    )
