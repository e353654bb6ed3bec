"""Command line of the Spark app: `python -m spark_app [options]`, `python -m spark_app inspect`,
`python -m spark_app read [options]`, `python -m spark_app reset [options]`,
`python -m spark_app repartition-state N [options]` (spark_app/query/state_repartition.py) and
`python -m spark_app class-archive` (spark_app/runtime/archive_command.py).

This is the only place that catches the app's errors: it prints one line saying what went wrong
and what to do, and returns 1 (2 for bad usage). Ctrl-C is a normal exit: the running app stops as
on SIGTERM (its own one line, exit 0); before it runs, one line and 130, as a shell reports it.

Usage: `run_cli(["--bootstrap-servers", "127.0.0.1:9092", "--sink", "at-least-once"])`
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from checkpoint_stores import STORES, CheckpointPlace
from spark_app.checkpoint.state_schema import STATE_SCHEMAS
from spark_app.errors import CheckpointStoreError, SourceOptionError, SparkAppError, unwrap
from spark_app.lines.output_line import OUTPUT_FORMATS
from spark_app.query.commands import run_check_query, run_read, run_repartition_state
from spark_app.runtime.cluster import ClusterSettings
from spark_app.runtime.spark_version import check_spark_version
from spark_app.settings import SparkAppSettings

__all__ = [
    "main_parser",
    "inspect_parser",
    "cluster_parser",
    "read_parser",
    "reset_parser",
    "repartition_parser",
    "run_cli",
    "settings_from_args",
]

_DEFAULTS = SparkAppSettings()


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return lowered == "true"


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    # float() takes "nan" and "inf"; neither is a trigger interval Spark can wait for.
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive, finite number of seconds, got {text}"
        )
    return value


def _timer_seconds(text: str) -> float:
    """An idle timer's delay: any finite number of seconds. 0 puts the timer at the batch's own
    processing time and a negative one before it, already due when it is registered: the
    timers a scan bounded below by the previous batch's time would pass over (SPARK-56400)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, got {text}")
    return value


def _bootstrap_servers(text: str) -> str:
    for server in text.split(","):
        host, _, port = server.strip().rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise argparse.ArgumentTypeError(
                f"expected HOST:PORT[,HOST:PORT...] such as 127.0.0.1:9092, got {text!r}"
            )
    return text


def _source_option(text: str) -> str:
    key, equals, _ = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE such as fetchOffset.numRetries=5, got {text!r}"
        )
    return text


def _latency(text: str) -> str:
    from spark_app.runtime.checkpoint_latency import CheckpointLatencyError, LatencySpec

    try:
        LatencySpec.parse(text)
    except CheckpointLatencyError as err:
        # argparse names the option itself: "argument --checkpoint-latency: <why>".
        why = str(err).split(": ", 1)[1].removeprefix("--checkpoint-latency").lstrip(": ")
        raise argparse.ArgumentTypeError(why) from None
    return text


def _topics(text: str) -> str:
    # The connector's words for an empty subscription (KafkaSourceProvider's check).
    if not [t for t in text.split(",") if t.strip()]:
        raise argparse.ArgumentTypeError(
            f"No topics to subscribe to as specified value for option 'subscribe' is '{text}'"
        )
    return text


def _pattern(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"Pattern to subscribe is empty as specified value for "
            f"option 'subscribePattern' is '{text}'"
        )
    try:
        re.compile(text)  # Python's regex stands in for Java's: they agree on the usual patterns
    except re.error as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not a valid pattern: {err}") from None
    return text


def _duration(text: str) -> str:
    """maxTriggerDelay as the connector reads it (Spark's timeStringAsMs), in its words."""
    from spark_app.source.options import parse_time_ms

    try:
        parse_time_ms(text)
    except SourceOptionError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _rate_limits(args: argparse.Namespace) -> None:
    """The connector's check across the two limits (KafkaSourceProvider), before Spark starts."""
    low, high = args.min_offsets_per_trigger, args.max_offsets_per_trigger
    if low is not None and high is not None and low > high:
        raise SourceOptionError(
            f"java.lang.IllegalArgumentException: The value of "
            f"minOffsetPerTrigger({low}) is higher than the "
            f"maxOffsetsPerTrigger({high})."
        )


def _group_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a consumer group name, got an empty string")
    return text


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spark_app",
        description="Seed 001's SparkApp on PySpark 4: count every Kafka message exactly once in "
        "Spark's state, with checkpoints. `python -m spark_app inspect --help` explains "
        "a checkpoint folder.",
    )
    p.add_argument(
        "--bootstrap-servers",
        type=_bootstrap_servers,
        default=_DEFAULTS.bootstrap_servers,
        metavar="HOST:PORT",
    )
    p.add_argument(
        "--topic",
        type=_topics,
        default=_DEFAULTS.topic,
        metavar="TOPIC[,TOPIC...]",
        help="the topic, or a comma-separated list (the source's subscribe option)",
    )
    p.add_argument(
        "--subscribe-pattern",
        type=_pattern,
        default=None,
        metavar="REGEX",
        help="read every topic whose name matches REGEX (subscribePattern) instead of --topic",
    )
    p.add_argument(
        "--source",
        choices=["python", "spark-kafka"],
        default=None,
        help='spark-kafka: Spark\'s own connector, format("kafka"), fetched once from '
        "Maven Central (the default); python: our Kafka source, offline",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="our Python source: nothing is fetched (the same as --source python)",
    )
    p.add_argument(
        "--source-option",
        type=_source_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="source_options",
        help="another option of the Kafka source, as in .option(KEY, VALUE), e.g. "
        "fetchOffset.numRetries=5 (repeatable)",
    )
    p.add_argument(
        "--checkpoint-dir",
        default=str(_DEFAULTS.checkpoint.folder),
        metavar="DIR|URI",
        help=_CHECKPOINT_DIR_HELP,
    )
    _add_store_options(p, "`python -m checkpoint_stores hdfs|s3` starts one")
    p.add_argument(
        "--log-dir",
        type=Path,
        default=_DEFAULTS.log_dir,
        help="streaming-output.log and spark.log go here",
    )
    p.add_argument("--trigger-sec", type=_seconds, default=_DEFAULTS.trigger_sec)
    p.add_argument(
        "--starting-offsets",
        default=_DEFAULTS.starting_offsets,
        help='earliest, latest or JSON like {"Experience":{"0":42}}; only for a new checkpoint',
    )
    p.add_argument(
        "--fail-on-data-loss", type=_bool, default=_DEFAULTS.fail_on_data_loss, metavar="true|false"
    )
    p.add_argument(
        "--trigger",
        choices=["processing-time", "available-now", "real-time"],
        default=_DEFAULTS.trigger,
        help="processing-time: a batch every --trigger-sec (the default); "
        "available-now: Trigger.AvailableNow, read what Kafka holds at the "
        "start in batches the rate limits allow, then stop (a backfill); "
        "real-time: Real-time Mode (PySpark 4.2 or newer), each record as it comes, the "
        "checkpoint every --real-time-sec; its allowlist admits a stateless query to "
        "--output-topic only, so the counter is refused in Spark's words",
    )
    p.add_argument(
        "--real-time-sec",
        type=_seconds,
        default=_DEFAULTS.real_time_sec,
        metavar="S",
        help="with --trigger real-time: the batch duration, how often the checkpoint is "
        "written and how much a crash replays (Spark's minimum: 5)",
    )
    p.add_argument(
        "--connect",
        action="store_true",
        help="run the query through Spark Connect, on a server inside the app's own JVM "
        'that stops with the app (as remote("local[2]") does, on a free port); '
        "foreachBatch then runs in a Python process of the server's",
    )
    p.add_argument(
        "--output-topic",
        default=None,
        metavar="TOPIC",
        help="write the query's rows as JSON to this Kafka topic through Spark's Kafka sink "
        "(at least once) instead of the output log",
    )
    p.add_argument(
        "--max-offsets-per-trigger",
        type=_positive_int,
        default=None,
        metavar="N",
        help="read at most about N offsets a batch (maxOffsetsPerTrigger)",
    )
    p.add_argument(
        "--min-offsets-per-trigger",
        type=_positive_int,
        default=None,
        metavar="N",
        help="hold a batch back until N offsets wait, or --max-trigger-delay has "
        "passed (minOffsetsPerTrigger)",
    )
    p.add_argument(
        "--max-trigger-delay",
        type=_duration,
        default=None,
        metavar="DURATION",
        help="with --min-offsets-per-trigger: the longest a batch is held back, "
        "e.g. 30s or 15m (maxTriggerDelay; the connector's default 15m)",
    )
    p.add_argument("--sink", choices=["exactly-once", "at-least-once"], default=_DEFAULTS.sink)
    p.add_argument(
        "--on-negative-key",
        choices=["crash-once", "crash-always", "ignore"],
        default=_DEFAULTS.on_negative_key,
    )
    p.add_argument(
        "--shuffle-partitions",
        type=_positive_int,
        default=_DEFAULTS.shuffle_partitions,
        help="pinned in the checkpoint: only a new checkpoint takes a new value",
    )
    p.add_argument("--master", default=_DEFAULTS.master)
    p.add_argument("--ui", action="store_true", help="turn the Spark UI on and print its address")
    p.add_argument(
        "--ui-port",
        type=_positive_int,
        default=_DEFAULTS.ui_port,
        metavar="PORT",
        help="the Spark UI's port with --ui (Spark tries the next ones when taken)",
    )
    p.add_argument(
        "--offsets-from-group",
        type=_group_name,
        default=None,
        metavar="GROUP",
        help="commit each batch's start offsets to this Kafka consumer group, and start "
        "a fresh checkpoint from them instead of --starting-offsets "
        "(at-least-once: the last batch may be processed again)",
    )
    p.add_argument(
        "--checkpoint-latency",
        type=_latency,
        default=None,
        metavar="SPEC",
        help="make every checkpoint write take this long, on Spark's own write path: "
        "fixed:500ms or lognormal:mean=2.6s,min=1s,max=20s (seed 000's S3); "
        "add @state for the state store's files only (fixed:2s@state)",
    )
    p.add_argument(
        "--event-log-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="write Spark's event log (executors added and lost, every task attempt) "
        "to DIR, as the History Server reads it",
    )
    p.add_argument(
        "--gc-log",
        type=Path,
        default=None,
        metavar="FILE",
        help="log the driver JVM's garbage collections to FILE, with a full collection "
        "after every 2 s without one: its lines show the live heap a leak grows",
    )
    _add_upgrade_options(p)
    _add_state_store_options(p)
    _add_supervisor_options(p)
    p.add_argument(
        "--class-cache-dir",
        type=Path,
        default=_DEFAULTS.class_cache_dir,
        help="where the JVM keeps the Spark classes archive that halves the start time",
    )
    p.add_argument(
        "--no-class-cache",
        action="store_true",
        help="start the JVM without the classes archive (and do not write one)",
    )
    return p


_CHECKPOINT_DIR_HELP = (
    "the checkpoint: a folder (on --checkpoint-store), or a URI on a store of "
    "yours, hdfs://NAMENODE[:PORT]/PATH or s3a://BUCKET/PATH (the S3 "
    "endpoint from --checkpoint-store-url)"
)


def _add_store_options(p: argparse.ArgumentParser, more: str) -> None:
    p.add_argument(
        "--checkpoint-store",
        choices=list(STORES),
        default=_DEFAULTS.checkpoint.kind,
        help=f"where --checkpoint-dir lives: this disk, or its path on HDFS or an S3 "
        f"endpoint; {more}",
    )
    p.add_argument(
        "--checkpoint-store-url",
        default=None,
        metavar="URL",
        help="the store: hdfs://HOST:PORT or http://HOST:PORT[/BUCKET] (default "
        "hdfs://127.0.0.1:8020, http://127.0.0.1:9000)",
    )


def _add_upgrade_options(p: argparse.ArgumentParser) -> None:
    """The two "new version" switches of the upgrade scenario."""
    p.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default=_DEFAULTS.output_format,
        help="v2 adds partition@offset to each message line; allowed to change on an "
        "existing checkpoint",
    )
    p.add_argument(
        "--state-schema",
        choices=list(STATE_SCHEMAS),
        default=_DEFAULTS.state_schema,
        help="v2 adds a field to the count's state (refused on a v1 checkpoint, "
        "accepted by transform-with-state with --state-encoding avro); "
        "v2-renamed and v2-narrowed rename and narrow one of v2's fields",
    )


def _checkpoint_format(text: str) -> int:
    if text not in ("1", "2"):
        raise argparse.ArgumentTypeError(f"expected 1 or 2, got {text!r}")
    return int(text)


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.3, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or a positive, finite number, got {text}")
    return value


def _add_state_store_options(p: argparse.ArgumentParser) -> None:
    """Where Spark keeps the count's state; all pinned in a checkpoint when it is created."""
    p.add_argument(
        "--state-store",
        choices=["hdfs", "rocksdb"],
        default=_DEFAULTS.state_store,
        help="hdfs: Spark's default, a delta file per batch; rocksdb: a RocksDB "
        "database, uploaded as zip snapshots and SST files. A restart keeps "
        "the store that wrote the checkpoint",
    )
    p.add_argument(
        "--changelog-checkpointing",
        action="store_true",
        help="RocksDB only: each batch writes a small changelog; snapshots follow "
        "in the background every 10 batches (recovery replays changelogs)",
    )
    p.add_argument(
        "--checkpoint-format",
        type=_checkpoint_format,
        default=_DEFAULTS.checkpoint_format,
        metavar="1|2",
        help="RocksDB only: 2 names state files per attempt (<v>_<uuid>.zip) and "
        "records in commits/N which ones a batch committed",
    )
    p.add_argument(
        "--query",
        type=Path,
        default=None,
        metavar="FILE.py",
        help="run your own query module instead of the counter: OUTPUT_MODE, KEY and "
        "build(records) (docs/your-query.md); its rows go to LOG_DIR/query-output/, a JSON-lines "
        "file per batch, written exactly once",
    )
    p.add_argument(
        "--counter",
        choices=["apply-in-pandas-with-state", "transform-with-state"],
        default=_DEFAULTS.counter,
        help="the stateful operator that counts: applyInPandasWithState, or its "
        "successor transformWithStateInPandas (needs --state-store rocksdb); "
        "a checkpoint keeps the one that wrote it",
    )
    p.add_argument(
        "--initial-state-from",
        type=Path,
        default=None,
        metavar="CHECKPOINT",
        help="transform-with-state only: start a new checkpoint's count at the count "
        "CHECKPOINT holds after its last committed batch (read with Spark's "
        "State Data Source); pair it with --starting-offsets from that batch's "
        "offsets. Spark uses it in the new query's first batch only",
    )
    p.add_argument(
        "--state-ttl-sec",
        type=_seconds,
        default=None,
        metavar="S",
        help="transform-with-state only: keep a second value state, last_seen, with "
        "a TTL of S s (the count has none); a message that finds it expired "
        "writes an `Event ttl-expired` line first (ProcessingTime mode)",
    )
    p.add_argument(
        "--idle-timer-sec",
        type=_timer_seconds,
        default=None,
        metavar="S",
        help="transform-with-state only: a processing-time timer per key, due S s "
        "after the processing time of its last batch with messages; when it "
        "fires the output log gets an `Event idle-timer` line (timers are "
        "checkpointed). S may be 0: due at that batch's own time, so it fires "
        "in that batch or the next; or negative: due that long before it, "
        "already overdue (a timer at or before the previous batch's time, "
        "which a scan bounded below by that time would miss: SPARK-56400)",
    )
    p.add_argument(
        "--state-encoding",
        choices=["unsaferow", "avro"],
        default=_DEFAULTS.state_encoding,
        help="transform-with-state only: how state rows are encoded "
        "(spark.sql.streaming.stateStore.encodingFormat), pinned in the "
        "checkpoint; avro lets the value state's schema evolve",
    )
    p.add_argument(
        "--snapshot-every",
        type=_positive_int,
        default=None,
        metavar="N",
        help="a full state snapshot after N deltas or changelogs "
        "(spark.sql.streaming.stateStore.minDeltasForSnapshot; Spark's default 10)",
    )
    p.add_argument(
        "--maintenance-sec",
        type=_seconds,
        default=None,
        metavar="S",
        help="how often the store's background maintenance writes snapshots and "
        "deletes old files (…stateStore.maintenanceInterval; Spark's default 60 s)",
    )
    p.add_argument(
        "--min-batches-to-retain",
        type=_positive_int,
        default=None,
        metavar="N",
        help="keep the last N batches' offsets, commits and state versions; older "
        "ones are deleted while the query runs "
        "(spark.sql.streaming.minBatchesToRetain; Spark's default 100)",
    )
    p.add_argument(
        "--extra-space-ratio",
        type=_ratio,
        default=None,
        metavar="R",
        help="let R x N stale state versions pile up before maintenance deletes "
        "them in one go (…ratioExtraSpaceAllowedInCheckpoint; Spark's default "
        "0.3; 0 deletes every stale version at once)",
    )


def _add_supervisor_options(p: argparse.ArgumentParser) -> None:
    """`--supervise`: like `spark-submit --supervise`, restart the app after a failure."""
    p.add_argument(
        "--supervise",
        action="store_true",
        help="run the app under a supervisor that restarts it after a failure, with "
        "backoff, and gives up on a crash loop at the same checkpoint position",
    )
    p.add_argument(
        "--give-up-after",
        type=_positive_int,
        default=_DEFAULTS.give_up_after,
        metavar="N",
        help="with --supervise: give up after N failures in a row without the checkpoint moving",
    )
    p.add_argument(
        "--max-backoff-sec",
        type=_seconds,
        default=_DEFAULTS.max_backoff_sec,
        metavar="S",
        help="with --supervise: the longest wait between restarts",
    )


def inspect_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spark_app inspect",
        description="Explain a checkpoint folder: where a restart resumes, the count in state, and "
        "whether Kafka still holds the offsets it needs.",
    )
    p.add_argument(
        "--checkpoint-dir",
        default=str(_DEFAULTS.checkpoint.folder),
        metavar="DIR|URI",
        help=_CHECKPOINT_DIR_HELP,
    )
    _add_store_options(
        p,
        "a store's checkpoint is copied whole to --log-dir with Hadoop's "
        "client first, then read here",
    )
    p.add_argument(
        "--bootstrap-servers",
        type=_bootstrap_servers,
        default=_DEFAULTS.bootstrap_servers,
        metavar="HOST:PORT",
    )
    p.add_argument(
        "--log-dir",
        type=Path,
        default=_DEFAULTS.log_dir,
        help="where Spark's log goes when reading the state (and a store's copy)",
    )
    p.add_argument(
        "--no-state",
        action="store_true",
        help="skip reading the count from state (avoids starting Spark)",
    )
    p.add_argument(
        "--state-source",
        action="store_true",
        help="also read the state through Spark's State Data Source (state-metadata, "
        "statestore, readChangeFeed): the operator, the count, what each of the "
        "last batches changed, the store's kind and format, and the files the "
        "next batch loads",
    )
    p.add_argument(
        "--state-batch",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="with the State Data Source (implies --state-source): the count as "
        "batch N left it (its batchId option), instead of the last committed batch",
    )
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    return p


def read_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spark_app read",
        description="Read the topic once as a batch query through Spark's Kafka connector "
        '(spark.read.format("kafka"), earliest to latest) and print the records '
        "per partition; no checkpoint, no output log.",
    )
    p.add_argument(
        "--bootstrap-servers",
        type=_bootstrap_servers,
        default=_DEFAULTS.bootstrap_servers,
        metavar="HOST:PORT",
    )
    p.add_argument("--topic", type=_topics, default=_DEFAULTS.topic)
    p.add_argument(
        "--source-option",
        dest="source_options",
        action="append",
        default=[],
        type=_source_option,
        metavar="KEY=VALUE",
        help="any other option of the connector's reader, e.g. "
        "fetchOffset.numRetries=5 (repeatable)",
    )
    p.add_argument(
        "--log-dir", type=Path, default=_DEFAULTS.log_dir, help="where Spark's log goes (spark.log)"
    )
    return p


def reset_parser() -> argparse.ArgumentParser:
    """The app's own options (its command line can be given as it is, a typo is refused); only
    --checkpoint-dir and --log-dir are used."""
    p = main_parser()
    p.prog = "python -m spark_app reset"
    p.description = (
        "Start the next run clean: empty the checkpoint folder (hidden files too, "
        "keeping .gitkeep) and move the output log aside "
        "(streaming-output.<time>.log), so `python -m scenarios verify` reads the "
        "new run only. Refused while the app runs on that checkpoint. Takes the "
        "app's options; only --checkpoint-dir and --log-dir matter."
    )
    return p


def repartition_parser() -> argparse.ArgumentParser:
    """The app's own options, as for reset, and N; only the checkpoint's and the log's matter."""
    p = main_parser()
    p.prog = "python -m spark_app repartition-state"
    p.description = (
        "Spread a stopped query's state over N partitions, offline, with PySpark 4.2's "
        "private spark._streamingCheckpointManager.repartition: it writes one batch that "
        "holds the state in N partitions and reads no input; the next start goes on from "
        "it. Refused in one line while the app runs on that checkpoint, after a batch that "
        "never committed, on the HDFS-backed state store, and before PySpark 4.2. Takes the "
        "app's options; only --checkpoint-dir (and its store) and --log-dir matter."
    )
    p.add_argument(
        "partitions",
        type=_positive_int,
        metavar="N",
        help="the state's new number of partitions (spark.sql.shuffle.partitions from then on)",
    )
    return p


def cluster_parser() -> argparse.ArgumentParser:
    defaults = ClusterSettings()
    p = argparse.ArgumentParser(
        prog="python -m spark_app cluster",
        description="Start a Spark standalone cluster (a Master and Workers) on loopback from "
        "PySpark's own launcher, print its master URL, and run until Ctrl-C.",
    )
    p.add_argument("--workers", type=_positive_int, default=defaults.workers)
    p.add_argument("--cores-per-worker", type=_positive_int, default=defaults.cores_per_worker)
    p.add_argument(
        "--memory-per-worker",
        default=defaults.memory_per_worker,
        metavar="SIZE",
        help="e.g. 1g or 512m",
    )
    p.add_argument(
        "--dir",
        type=Path,
        default=Path("log") / "cluster",
        help="the Master's and Workers' logs and work folders",
    )
    return p


def _source(args: argparse.Namespace) -> str:
    """--source, or python for --offline; the two disagreeing is one line, not a guess."""
    if args.offline and args.source not in (None, "python"):
        raise SourceOptionError(f"--offline and --source {args.source} disagree: give one")
    return "python" if args.offline else (args.source or _DEFAULTS.source)


def _place(args: argparse.Namespace) -> CheckpointPlace:
    """Where the checkpoint lives, made once from --checkpoint-dir (a folder, or a URI that sets
    the store and its URL too), --checkpoint-store and --checkpoint-store-url; one line when
    the URI is not one we take, the options disagree, or the URL does not fit the store."""
    try:
        return CheckpointPlace.from_options(
            str(args.checkpoint_dir), args.checkpoint_store, args.checkpoint_store_url
        )
    except ValueError as error:
        raise CheckpointStoreError(str(error)) from error


def settings_from_args(args: argparse.Namespace) -> SparkAppSettings:
    _rate_limits(args)
    place = _place(args)
    return SparkAppSettings(
        bootstrap_servers=args.bootstrap_servers,
        topic=args.topic,
        subscribe_pattern=args.subscribe_pattern,
        source=_source(args),
        source_options=tuple(args.source_options),
        checkpoint=place,
        log_dir=args.log_dir,
        trigger_sec=args.trigger_sec,
        starting_offsets=args.starting_offsets,
        fail_on_data_loss=args.fail_on_data_loss,
        trigger=args.trigger,
        real_time_sec=args.real_time_sec,
        output_topic=args.output_topic,
        connect=args.connect,
        max_offsets_per_trigger=args.max_offsets_per_trigger,
        min_offsets_per_trigger=args.min_offsets_per_trigger,
        max_trigger_delay=args.max_trigger_delay,
        sink=args.sink,
        on_negative_key=args.on_negative_key,
        shuffle_partitions=args.shuffle_partitions,
        master=args.master,
        ui=args.ui,
        ui_port=args.ui_port,
        offsets_from_group=args.offsets_from_group,
        output_format=args.output_format,
        state_schema=args.state_schema,
        state_store=args.state_store,
        changelog_checkpointing=args.changelog_checkpointing,
        checkpoint_format=args.checkpoint_format,
        counter=args.counter,
        query=args.query,
        initial_state_from=args.initial_state_from,
        state_ttl_sec=args.state_ttl_sec,
        idle_timer_sec=args.idle_timer_sec,
        state_encoding=args.state_encoding,
        snapshot_every=args.snapshot_every,
        maintenance_sec=args.maintenance_sec,
        min_batches_to_retain=args.min_batches_to_retain,
        extra_space_ratio=args.extra_space_ratio,
        supervise=args.supervise,
        give_up_after=args.give_up_after,
        max_backoff_sec=args.max_backoff_sec,
        checkpoint_latency=args.checkpoint_latency,
        event_log_dir=args.event_log_dir,
        gc_log=args.gc_log,
        class_cache_dir=None if args.no_class_cache else args.class_cache_dir,
    )


def _run_app(argv: Sequence[str]) -> int:
    settings = settings_from_args(main_parser().parse_args(argv))
    if settings.supervise:
        return _supervise(argv, settings)
    check_spark_version()  # one line, not an ImportError from deep inside the source
    from spark_app.query.app import SparkApp  # pulls in pyspark: only when running the app

    SparkApp(settings).run()
    return 0


def _supervise(argv: Sequence[str], settings: SparkAppSettings) -> int:
    from spark_app.supervisor import Supervisor, SupervisorSettings, child_argv

    command = [sys.executable, "-m", "spark_app", *child_argv(argv)]
    patience = SupervisorSettings(
        give_up_after=settings.give_up_after, max_backoff_sec=settings.max_backoff_sec
    )
    return Supervisor(command, settings.checkpoint.folder, patience).run()


def _run_cluster(argv: Sequence[str]) -> int:
    from spark_app.runtime.cluster import run_cluster

    args = cluster_parser().parse_args(argv)
    return run_cluster(
        ClusterSettings(
            workers=args.workers,
            cores_per_worker=args.cores_per_worker,
            memory_per_worker=args.memory_per_worker,
        ),
        args.dir,
    )


def _run_reset(argv: Sequence[str]) -> int:
    from datetime import datetime

    from spark_app.reset import reset

    settings = settings_from_args(reset_parser().parse_args(argv))
    for line in reset(settings.checkpoint.folder, settings.log_dir, datetime.now()):
        print(line, flush=True)
    return 0


def _run_repartition(argv: Sequence[str]) -> int:
    from spark_app.reset import running_apps

    args = repartition_parser().parse_args(argv)
    return run_repartition_state(settings_from_args(args), args.partitions, running_apps)


def _run_read(argv: Sequence[str]) -> int:
    args = read_parser().parse_args(argv)
    return run_read(
        SparkAppSettings(
            bootstrap_servers=args.bootstrap_servers,
            topic=args.topic,
            source_options=tuple(args.source_options),
            log_dir=args.log_dir,
        )
    )


def _run_inspect(argv: Sequence[str]) -> int:
    from spark_app.checkpoint.inspect import run_inspect

    args = inspect_parser().parse_args(argv)
    where = SparkAppSettings(checkpoint=_place(args), log_dir=args.log_dir)
    return run_inspect(args, where)


def run_cli(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["inspect"]:
            return _run_inspect(argv[1:])
        if argv[:1] == ["cluster"]:
            return _run_cluster(argv[1:])
        if argv[:1] == ["reset"]:
            return _run_reset(argv[1:])
        if argv[:1] == ["read"]:
            return _run_read(argv[1:])
        if argv[:1] == ["repartition-state"]:
            return _run_repartition(argv[1:])
        if argv[:1] == ["check-query"]:
            return run_check_query(argv[1:])
        if argv[:1] == ["class-archive"]:
            from spark_app.runtime.archive_command import run_archive

            return run_archive(argv[1:])
        return _run_app(argv)
    except KeyboardInterrupt:  # Ctrl-C before the app took SIGINT over (e.g. importing pyspark)
        print("spark_app: stopped (Ctrl-C)", file=sys.stderr, flush=True)
        return 130
    except SparkAppError as err:
        print(f"spark_app: {err}", file=sys.stderr, flush=True)
        return err.exit_code
    except Exception as err:  # Py4J/PySpark wrappers that escaped the app: find our error inside
        ours = unwrap(err)
        if ours is None:
            raise
        print(f"spark_app: {ours}", file=sys.stderr, flush=True)
        return ours.exit_code
