"""The Spark app's settings: one frozen dataclass with the seed's defaults.

The CLI builds it from the command line; nothing is changed by editing source.

Usage:
    settings = SparkAppSettings(bootstrap_servers="127.0.0.1:9092", sink="at-least-once")
    on_s3 = SparkAppSettings(checkpoint=CheckpointPlace("s3", Path("runs/cp"), url))
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal

from checkpoint_stores import CheckpointPlace
from maven_jars.cache import cache_root
from spark_app.lines.query_rows import QUERY_OUTPUT_DIR
from spark_app.lines.start_lines import SEEDS_STARTING_OFFSETS

__all__ = [
    "SparkAppSettings",
    "SinkMode",
    "TriggerKind",
    "NegativeKeyPolicy",
    "OutputFormat",
    "StateSchema",
    "SourceKind",
    "StateEncoding",
    "StateStoreKind",
    "CounterKind",
    "OUTPUT_FILE_NAME",
    "SPARK_LOG_FILE_NAME",
]

SinkMode = Literal["exactly-once", "at-least-once"]
NegativeKeyPolicy = Literal["crash-once", "crash-always", "ignore"]
OutputFormat = Literal["v1", "v2"]
StateSchema = Literal["v1", "v2", "v2-renamed", "v2-narrowed"]
StateEncoding = Literal["unsaferow", "avro"]
SourceKind = Literal["python", "spark-kafka"]
StateStoreKind = Literal["hdfs", "rocksdb"]
# processing-time: a batch every --trigger-sec while the app runs (the seed's); available-now:
# Trigger.AvailableNow, read what Kafka holds at the start, in batches the rate limits allow,
# then stop by itself (a backfill); real-time: Real-time Mode (PySpark 4.2), a batch of
# --real-time-sec that processes each record as it comes (query/real_time.py).
TriggerKind = Literal["processing-time", "available-now", "real-time"]
CounterKind = Literal["apply-in-pandas-with-state", "transform-with-state"]

OUTPUT_FILE_NAME = "streaming-output.log"
_REPEATED_FLAGS = {"source_options": "--source-option"}
# The checkpoint's place is one value given by three options (checkpoint_stores/locations.py).
_PLACE_FLAGS = {
    "folder": "--checkpoint-dir",
    "kind": "--checkpoint-store",
    "url": "--checkpoint-store-url",
}
_SWITCHES = ("ui", "supervise", "changelog_checkpointing", "connect")
SPARK_LOG_FILE_NAME = "spark.log"


@dataclass(frozen=True)
class SparkAppSettings:
    """Everything `python -m spark_app` can be told; defaults follow seed 001."""

    bootstrap_servers: str = "127.0.0.1:9092"
    # One topic or a comma-separated list, as the source's `subscribe` option takes it.
    topic: str = "Experience"
    # Read every topic whose name matches this Java regex (`subscribePattern`) instead of
    # `--topic`; None: subscribe to `topic`. The query-changes scenario switches to it.
    subscribe_pattern: str | None = None
    # "spark-kafka": Spark's own connector, what production runs (fetched once from Maven
    # Central; connector.py); "python": our Kafka source, which stands in for it offline.
    source: SourceKind = "spark-kafka"
    # Any other option of the Kafka source, `KEY=VALUE`, e.g. `fetchOffset.numRetries=5` or
    # `kafka.request.timeout.ms=5000`: the same names on ours and on the connector.
    source_options: tuple[str, ...] = ()
    # Where the checkpoint lives: a folder on this disk, or its path on HDFS or an S3 endpoint
    # (checkpoint_stores/locations.py); `--checkpoint-dir`, `--checkpoint-store` and
    # `--checkpoint-store-url` on the command line.
    checkpoint: CheckpointPlace = CheckpointPlace()
    log_dir: Path = Path("log")
    trigger_sec: float = 1.0
    # "earliest" is the seed's "smallest": a new query reads everything Kafka still holds.
    starting_offsets: str = SEEDS_STARTING_OFFSETS
    fail_on_data_loss: bool = True
    trigger: TriggerKind = "processing-time"
    # Real-time Mode's batch duration: how often its checkpoint is written, and how much a crash
    # replays. Spark's minimum (spark.sql.streaming.realTimeMode.minBatchDuration) is 5 s.
    real_time_sec: float = 5.0
    # Spark's Kafka sink instead of the output log: the query's rows as JSON in this topic's
    # record values (at least once). The one sink of ours Real-time Mode's allowlist admits.
    output_topic: str | None = None
    # Run the query through Spark Connect, on a server inside the app's own JVM
    # (runtime/connect.py): how more and more jobs run, and a query may plan differently.
    connect: bool = False
    max_offsets_per_trigger: int | None = None
    # The connector's minOffsetsPerTrigger and maxTriggerDelay (a duration such as 30s or 15m,
    # the connector's default 15m): a batch waits until that many offsets are there, or the
    # delay has passed since the last batch. None: the option is not given to the source.
    min_offsets_per_trigger: int | None = None
    max_trigger_delay: str | None = None
    sink: SinkMode = "exactly-once"
    on_negative_key: NegativeKeyPolicy = "crash-once"
    master: str = "local[2]"
    # Pinned in the checkpoint for its whole life; the count has one group, so one partition
    # does all the work and more would only add empty tasks and state stores to every batch.
    shuffle_partitions: int = 1
    ui: bool = False
    ui_port: int = 4040
    # Seed 000's offsets outside Spark: commit each batch's start offsets to this consumer group
    # and start a fresh checkpoint from them (None: offsets live in the checkpoint only).
    offsets_from_group: str | None = None
    # The upgrade scenario's two kinds of change: the lines foreachBatch writes (allowed on the
    # same checkpoint) and the state struct of the count (refused by Spark on an old checkpoint).
    output_format: OutputFormat = "v1"
    state_schema: StateSchema = "v1"
    # Where and how Spark keeps the count's state (runtime/state_store.py). All three are pinned
    # in the checkpoint's offset log: a restart keeps what wrote the checkpoint.
    state_store: StateStoreKind = "hdfs"
    changelog_checkpointing: bool = False  # RocksDB only: a changelog per batch, snapshots later
    checkpoint_format: int = 1  # RocksDB only: 2 names state files per attempt, with a lineage
    # Which operator counts: today's applyInPandasWithState or its successor (counter_tws.py).
    counter: CounterKind = "apply-in-pandas-with-state"
    # A user's own query module instead of the counter (query/user_query.py): its rows go to
    # `<log-dir>/query-output/` (lines/query_rows.py), one file per batch. None: the counter.
    query: Path | None = None
    # The move to transformWithState: seed the count of a new checkpoint with the count another
    # checkpoint holds after its last committed batch (read with the State Data Source), as
    # transformWithState's initialState; Spark applies it in batch 0 only (initial_state.py).
    initial_state_from: Path | None = None
    # transformWithState only, each of them turning its time mode to ProcessingTime (pinned in
    # the checkpoint): a second value state `last_seen` that expires after this many seconds
    # without a message (state TTL), and a timer that fires after this many idle seconds.
    state_ttl_sec: float | None = None
    idle_timer_sec: float | None = None
    # How the state store encodes state rows (spark.sql.streaming.stateStore.encodingFormat),
    # pinned in the offset log: avro lets transformWithState's value schema evolve.
    state_encoding: StateEncoding = "unsaferow"
    # How often a store writes a full snapshot (spark.sql.streaming.stateStore.minDeltasForSnapshot,
    # Spark's default 10) and how often the background maintenance that writes it runs
    # (…stateStore.maintenanceInterval, default 60 s); None: Spark's defaults. Not pinned.
    snapshot_every: int | None = None
    maintenance_sec: float | None = None
    # How much history the checkpoint keeps (runtime/retention.py): offsets/commits and state
    # versions older than this many batches may be deleted (spark.sql.streaming.minBatchesToRetain,
    # Spark's default 100), and how many stale state versions may pile up before maintenance
    # deletes them in one go, as a share of it (…ratioExtraSpaceAllowedInCheckpoint, 0.3).
    # None: Spark's defaults. Neither is pinned: a restart may change them.
    min_batches_to_retain: int | None = None
    extra_space_ratio: float | None = None
    # `--supervise` (supervisor.py): restart after a failure, give up on a crash loop.
    supervise: bool = False
    give_up_after: int = 3
    max_backoff_sec: float = 60.0
    # Seed 000's slow checkpoint storage: every checkpoint write Spark makes takes this long
    # (checkpoint_latency.py), e.g. "lognormal:mean=2.6s,min=1s,max=20s"; None: the disk's speed.
    checkpoint_latency: str | None = None
    # Spark's event log (every executor added or lost, every task attempt, as JSON lines) goes
    # to this folder when set: the cluster scenarios read their evidence from it.
    event_log_dir: Path | None = None
    # The driver JVM logs its collections to this file, with a full collection after every few
    # seconds without one, so that the log shows the live heap (lines/gc_log.py); None: no log.
    gc_log: Path | None = None
    # Where the driver JVM's class-data sharing archive lives (see class_cache.py); None: off.
    # The project's one cache folder by default, the jar cache's (class_cache.default_cache_dir).
    class_cache_dir: Path | None = field(default_factory=cache_root)

    def to_argv(self) -> list[str]:
        """This object as `python -m spark_app`'s command line: every field that differs from
        the default, as `--field-name value`. The CLI parses it back into an equal object (a
        test holds the two to that), so scenarios, the demo, tests and benchmarks build settings
        and never type a flag."""
        default = SparkAppSettings()
        argv: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            # The source always: a child started by a scenario must not depend on a default.
            if value == getattr(default, f.name) and f.name != "source":
                continue
            flag = "--" + f.name.replace("_", "-")
            if f.name == "class_cache_dir" and value is None:
                argv.append("--no-class-cache")
            elif f.name == "checkpoint":
                argv += _place_argv(value)
            elif f.name in _SWITCHES:  # on when given
                argv.append(flag)
            elif isinstance(value, tuple):  # a repeatable flag, named in the singular
                for item in value:
                    argv += [_REPEATED_FLAGS[f.name], item]
            elif isinstance(value, bool):
                argv += [flag, "true" if value else "false"]
            elif value is not None:
                argv += [flag, str(value)]
        return argv

    @property
    def output_file(self) -> Path:
        return self.log_dir / OUTPUT_FILE_NAME

    @property
    def query_output(self) -> Path:
        """Where a query module's batches are written (lines/query_rows.py)."""
        return self.log_dir / QUERY_OUTPUT_DIR

    @property
    def spark_log_file(self) -> Path:
        return self.log_dir / SPARK_LOG_FILE_NAME


def _place_argv(place: CheckpointPlace) -> list[str]:
    """The place's options: each part that differs from the default place's."""
    default = CheckpointPlace()
    return [
        part
        for name, flag in _PLACE_FLAGS.items()
        if (value := getattr(place, name)) != getattr(default, name)
        for part in (flag, str(value))
    ]
