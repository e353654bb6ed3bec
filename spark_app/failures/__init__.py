"""How the app names Spark's failures: every error Spark raises that the app recognises, turned
into one of its one-line errors (spark_app/errors.py) with what to do, in one folder, as PySpark
keeps its own in `pyspark.errors`.

`explain_failure` is the one way in: it tries the recognisers in a fixed order and falls back to
STREAM_FAILED with Spark's first and last words. Each module recognises one family:

- `kafka`: Spark's Kafka connector: data loss (`KAFKA_DATA_LOSS.…`), a Kafka it cannot reach,
  a Kafka client refusing the source's kafka.* options;
- `storage`: the checkpoint and the storage under it: a second writer, a full disk, a store that
  stopped answering, torn files, state Spark cannot load;
- `state_schema`: a changed state schema Spark refuses on an old checkpoint;
- `known_bugs`: Spark's own bugs, named with their ticket (their lines are in lines/).

A failure of ours raised inside Spark's Python workers comes back wrapped; `explain_failure`
finds it first (`errors.unwrap`), so a recogniser only ever reads Spark's own words.

Usage: `raise explain_failure(query.exception(), settings)`
"""

from spark_app.failures.explain import explain_failure, is_transient

__all__ = ["explain_failure", "is_transient"]
