"""The state store the count lives in: `--state-store`, `--changelog-checkpointing`,
`--checkpoint-format` and `--counter`, as Spark confs, with the combinations Spark refuses.

- `hdfs` (Spark's default): the state is a map in executor memory; each batch writes
  `state/<op>/<part>/<v>.delta` and every 10th version a `<v>.snapshot`.
- `rocksdb`: the state is a RocksDB database on the executor's local disk; each batch uploads a
  `<v>.zip` snapshot plus new `SSTs/*.sst` files, or, with changelog checkpointing, only a
  `<v>.changelog` (snapshots follow in the background, every 10 versions).
- checkpoint format 2 (RocksDB only): state files are named per attempt (`<v>_<uuid>.zip`) and
  `commits/<N>` records which ones the batch committed.

Spark pins the provider in `offsets/<N>`: a restart of an existing checkpoint keeps the store
that wrote it, whatever these flags say (Spark only logs a WARN). The format is not pinned, but
`commits/<N>` shows it, and a format-2 folder cannot go back to format 1 (refused here before
Spark 4.3, whose task would fail to load it). The refusals below are what Spark raises (or would
silently ignore), said before a slow Spark start.

Usage:
    check_state_store(as_pinned(settings, info.conf))  # raises StateStoreOptionError
    notes = judge_pins(settings, info.conf, committed_format=1, spark_version="4.2.0")
    conf = state_store_conf(settings)             # {"spark.sql.streaming.stateStore...": ...}
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import replace

from spark_app.errors import StateStoreOptionError
from spark_app.settings import SparkAppSettings

__all__ = [
    "PROVIDER_CLASSES",
    "PROVIDER_CONF",
    "CHANGELOG_CONF",
    "FORMAT_CONF",
    "SNAPSHOT_CONF",
    "MAINTENANCE_CONF",
    "ENCODING_CONF",
    "state_store_conf",
    "state_store_refusal",
    "check_state_store",
    "judge_pins",
    "tws_only_refusal",
    "store_kind",
    "pinned_store_note",
    "pinned_format_note",
    "format_downgrade_refusal",
    "as_pinned",
]

_PACKAGE = "org.apache.spark.sql.execution.streaming.state"
PROVIDER_CLASSES = {
    "hdfs": f"{_PACKAGE}.HDFSBackedStateStoreProvider",
    "rocksdb": f"{_PACKAGE}.RocksDBStateStoreProvider",
}
PROVIDER_CONF = "spark.sql.streaming.stateStore.providerClass"
CHANGELOG_CONF = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
FORMAT_CONF = "spark.sql.streaming.stateStore.checkpointFormatVersion"
SNAPSHOT_CONF = "spark.sql.streaming.stateStore.minDeltasForSnapshot"
MAINTENANCE_CONF = "spark.sql.streaming.stateStore.maintenanceInterval"
ENCODING_CONF = "spark.sql.streaming.stateStore.encodingFormat"


def store_kind(provider_class: str | None) -> str | None:
    """`hdfs` or `rocksdb` for a provider class name (as pinned in offsets/N), else None."""
    return next((kind for kind, name in PROVIDER_CLASSES.items() if name == provider_class), None)


def state_store_conf(settings: SparkAppSettings) -> dict[str, str]:
    """The Spark confs for the settings' state store; check_state_store first."""
    conf = {PROVIDER_CONF: PROVIDER_CLASSES[settings.state_store]}
    if settings.changelog_checkpointing:
        conf[CHANGELOG_CONF] = "true"
    if settings.checkpoint_format != 1:
        conf[FORMAT_CONF] = str(settings.checkpoint_format)
    if settings.snapshot_every is not None:
        conf[SNAPSHOT_CONF] = str(settings.snapshot_every)
    if settings.maintenance_sec is not None:
        conf[MAINTENANCE_CONF] = f"{int(settings.maintenance_sec * 1000)}ms"
    if settings.state_encoding != "unsaferow":
        conf[ENCODING_CONF] = settings.state_encoding
    return conf


def state_store_refusal(settings: SparkAppSettings, spark_version: str = "4.3.0") -> str | None:
    """Why Spark `spark_version` would refuse (or silently ignore) this combination; None
    when it runs."""
    if settings.checkpoint_format not in (1, 2):
        return (
            f"--checkpoint-format {settings.checkpoint_format}: Spark knows formats 1 and 2 "
            f"({FORMAT_CONF})"
        )
    if settings.state_store == "rocksdb":
        return None
    if settings.changelog_checkpointing:
        # Spark reads this conf only in the RocksDB provider: on HDFS it is ignored, silently.
        return (
            f"--changelog-checkpointing is a RocksDB option ({CHANGELOG_CONF}) that the HDFS "
            f"store silently ignores: add --state-store rocksdb"
        )
    before_4_1 = tuple(int(p) for p in spark_version.split(".")[:2]) < (4, 1)
    if settings.checkpoint_format == 2:
        return _FORMAT_2_ON_HDFS_4_0 if before_4_1 else _FORMAT_2_ON_HDFS
    if settings.counter == "transform-with-state":
        return _TWS_ON_HDFS_4_0 if before_4_1 else _TWS_ON_HDFS
    return None


# Spark's own words, as the running Spark raises them (docs/spark-state-verified.md): 4.3.0,
# and 4.0.5 where they differ (4.1 and 4.2 not run yet: taken to speak as 4.3 does). Spark
# fails the first batch's task with these, inside foreachBatch's job.
_FORMAT_2_ON_HDFS_4_0 = (
    "--checkpoint-format 2 needs --state-store rocksdb: Spark 4.0 fails the "
    "first batch with java.lang.NullPointerException: Cannot invoke "
    '"SQLConf.stateStoreCheckpointFormatVersion()" (HDFS has no format 2)'
)
_TWS_ON_HDFS_4_0 = (
    "--counter transform-with-state needs --state-store rocksdb: Spark refuses it "
    "with [UNSUPPORTED_FEATURE.STATE_STORE_MULTIPLE_COLUMN_FAMILIES] Creating "
    "multiple column families with HDFSBackedStateStoreProvider is not supported."
)
_FORMAT_2_ON_HDFS = (
    "--checkpoint-format 2 needs --state-store rocksdb: Spark refuses it with "
    "[STATE_STORE_CHECKPOINT_IDS_NOT_SUPPORTED] HDFSBackedStateStoreProvider "
    "does not support checkpointFormatVersion > 1"
)
_TWS_ON_HDFS = (
    "--counter transform-with-state needs --state-store rocksdb: Spark refuses it with "
    "[UNSUPPORTED_FEATURE.STORE_BACKEND_NOT_SUPPORTED_FOR_TWS] Store backend "
    "HDFSBackedStateStoreProvider is not supported by TransformWithState operator. "
    "Please use RocksDBStateStoreProvider."
)


def tws_only_refusal(settings: SparkAppSettings) -> str | None:
    """An option of transformWithState given to applyInPandasWithState, in one line; None
    when the counter is transform-with-state or no such option is given."""
    if settings.counter == "transform-with-state":
        return None
    # PySpark's applyInPandasWithState has no initialState (Spark's TODO SPARK-40444).
    if settings.initial_state_from is not None:
        return (
            "--initial-state-from needs --counter transform-with-state: "
            "applyInPandasWithState takes no initial state"
        )
    if settings.state_ttl_sec is not None:
        return (
            "--state-ttl-sec needs --counter transform-with-state: applyInPandasWithState "
            "has no state TTL (only a timeout per group, GroupStateTimeout)"
        )
    if settings.idle_timer_sec is not None:
        return (
            "--idle-timer-sec needs --counter transform-with-state: applyInPandasWithState "
            "has no timers (only a timeout per group, GroupStateTimeout)"
        )
    if settings.state_encoding == "avro":
        return (
            "--state-encoding avro needs --counter transform-with-state: Spark lets only "
            "transformWithState's state schema evolve, and only on Avro-encoded state"
        )
    return None


def _counter_refusal(settings: SparkAppSettings) -> str | None:
    """transformWithStateInPandas where the installed PySpark cannot run it."""
    if settings.counter != "transform-with-state":
        return tws_only_refusal(settings)
    from pyspark.sql.group import GroupedData

    if not hasattr(GroupedData, "transformWithStateInPandas"):
        return (
            "--counter transform-with-state needs PySpark 4.0 or newer "
            "(GroupedData.transformWithStateInPandas); use apply-in-pandas-with-state"
        )
    # The workers import it only inside the first batch, where a missing module fails the task.
    if importlib.util.find_spec("google.protobuf") is None:
        return (
            "--counter transform-with-state needs protobuf in this Python (its workers talk "
            "to Spark's state server in it): pip install 'protobuf>=6.33.5,<7'"
        )
    return None


def check_state_store(settings: SparkAppSettings) -> None:
    """Raise StateStoreOptionError, in one line, for a combination the installed Spark cannot
    run."""
    from spark_app.runtime.spark_version import installed_spark_version

    refusal = state_store_refusal(settings, installed_spark_version()) or _counter_refusal(settings)
    if refusal is not None:
        raise StateStoreOptionError(refusal)


def judge_pins(
    settings: SparkAppSettings, pinned: Mapping[str, str], committed_format: int, spark_version: str
) -> list[str]:
    """What the checkpoint pins against what the app was asked for: a StateStoreOptionError in
    one line where Spark would fail after planning a batch, a note (returned, to be said) where
    it silently keeps the checkpoint's choice."""
    # Judged on the store Spark will run: a restart keeps the one pinned in the checkpoint.
    check_state_store(as_pinned(settings, pinned))
    refusal = format_downgrade_refusal(settings, committed_format, spark_version)
    if refusal is not None:
        raise StateStoreOptionError(refusal)
    notes = (
        pinned_store_note(settings, pinned),
        pinned_format_note(settings, committed_format, spark_version),
    )
    return [note for note in notes if note is not None]


def as_pinned(settings: SparkAppSettings, pinned: Mapping[str, str]) -> SparkAppSettings:
    """The settings with the store the checkpoint pinned (what Spark will really run)."""
    kind = store_kind(pinned.get(PROVIDER_CONF))
    return settings if kind is None else replace(settings, state_store=kind)  # type: ignore[arg-type]


def pinned_store_note(settings: SparkAppSettings, pinned: Mapping[str, str]) -> str | None:
    """What a restart really runs on when the checkpoint's pinned store differs from the
    flags (Spark keeps the pinned one and only logs a WARN); None when they agree."""
    kind = store_kind(pinned.get(PROVIDER_CONF))
    if kind is None or kind == settings.state_store:
        return None
    return (
        f"This checkpoint was written with the {kind} state store, pinned in its offset log: "
        f"Spark keeps {kind} and ignores --state-store {settings.state_store} (a new "
        f"checkpoint takes a new store)"
    )


def pinned_format_note(
    settings: SparkAppSettings, committed_format: int, spark_version: str = "4.3.0"
) -> str | None:
    """What a restart of a format 2 checkpoint asked for format 1 really does on Spark 4.3:
    it keeps writing format 2, silently (docs/spark-state-verified.md). Earlier Spark refuses
    it instead (format_downgrade_refusal)."""
    if committed_format != 2 or settings.checkpoint_format != 1 or _before(spark_version, (4, 3)):
        return None
    return (
        "This checkpoint was written with checkpoint format 2 (commits/N are v2): Spark "
        "keeps format 2 and ignores --checkpoint-format 1, without a warning"
    )


def format_downgrade_refusal(
    settings: SparkAppSettings, committed_format: int, spark_version: str
) -> str | None:
    """Format 1 on a format 2 checkpoint, before Spark 4.3: Spark 4.2.0 plans the batch, then
    its task fails to load the state (the format 1 loader reads `3_<uuid>.zip` as version
    "3_<uuid>"), so the app refuses it first, in Spark's words."""
    if (
        committed_format != 2
        or settings.checkpoint_format != 1
        or not _before(spark_version, (4, 3))
    ):
        return None
    return (
        f"--checkpoint-format 1 on a checkpoint written with format 2 (commits/N are v2): "
        f"Spark {spark_version} fails its first batch with [CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] "
        f"An error occurred during loading state (NumberFormatException: For input string "
        f'"<v>_<uuid>"). Keep --checkpoint-format 2 on this checkpoint; a new checkpoint '
        f"may take format 1"
    )


def _before(spark_version: str, line: tuple[int, int]) -> bool:
    return tuple(int(p) for p in spark_version.split(".")[:2]) < line
