"""What the app checks before it starts Spark, and where the query starts.

A Spark start costs seconds and the connector retries an unreachable Kafka for minutes, so the
app first checks, in about a second, what it can without Spark: Java, the checkpoint store, the
source's options, the checkpoint (what it pins against what was asked), Kafka (one quick try),
startingOffsets for a new checkpoint, and last the connector's availability, which may fetch its
jars once. The source checks these again in Spark, in the connector's words.

With --offsets-from-group it also decides where the query starts (the group's offsets on a
fresh checkpoint), on the same look at the checkpoint and at Kafka; `with_start` says so and
gives the settings the query runs with. A checkpoint on a store is read through Spark's Hadoop
client once the session is up (`judge_store_pins`).

Usage:
    settings = with_start(settings, preflight(settings))
    with SparkSessionResource(settings) as spark:
        judge_store_pins(spark, settings)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint
from spark_app.checkpoint.state_data_source import commit_format
from spark_app.lines.start_lines import new_checkpoint_line
from spark_app.offsets import TopicPartition
from spark_app.query.group_offsets import StartChoice, choose_start
from spark_app.query.source_choice import check_connector_available, source_options
from spark_app.runtime.checkpoint_store import check_store, remote_commit_format, remote_pins
from spark_app.runtime.session import check_java
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.runtime.state_store import judge_pins
from spark_app.settings import SparkAppSettings
from spark_app.source.kafka_client import GroupOffsets
from spark_app.source.offset_reader import OffsetReader, resolve_starting_offsets
from spark_app.source.options import SourceOptions

__all__ = ["preflight", "with_start", "judge_store_pins"]


def preflight(settings: SparkAppSettings) -> StartChoice | None:
    """Fail fast, before the slow Spark start, on what we can check without Spark: Java, the
    source's options, the checkpoint, Kafka, (for a new checkpoint) startingOffsets, and last
    the connector's availability, which may fetch its jars once. The source checks these again
    in Spark, in the connector's words; here a mistake costs a second instead of a Spark start,
    and Kafka gets one quick try instead of the connector's minutes of retries.

    With --offsets-from-group it also decides where the query starts (the group's offsets on a
    fresh checkpoint), on the same look at the checkpoint and at Kafka.
    """
    check_java()
    check_store(settings.checkpoint)
    options = replace(
        SourceOptions.parse(source_options(settings)),
        fetch_offset_num_retries=1,
        kafka_params={"default.api.timeout.ms": "10000", "request.timeout.ms": "10000"},
    )
    info, committed_format = _local_view(settings)
    _judge_pins(settings, info.conf, committed_format)
    with OffsetReader(options, warn=lambda _: None) as reader:  # ours, with kafka-python
        partitions = reader.partitions()
        if info.is_new:
            resolve_starting_offsets(options, reader)
    # After every other check: on an empty jar cache this fetches the connector (10 s or
    # more), and a refused option or an unreachable Kafka should not wait for that.
    if settings.source == "spark-kafka":
        check_connector_available(installed_spark_version())
    if info.is_new and settings.checkpoint.is_local:
        print(new_checkpoint_line(settings.starting_offsets), flush=True)
    if settings.offsets_from_group is None:
        return None
    return _start_from_group(settings, settings.offsets_from_group, info.is_new, partitions)


def with_start(settings: SparkAppSettings, choice: StartChoice | None) -> SparkAppSettings:
    """The settings the query starts with: the group's offsets when preflight chose them, said
    on the console and in spark.log."""
    if choice is None:
        return settings
    logging.getLogger("spark_app").info(choice.message)
    print(choice.message, flush=True)
    return replace(settings, starting_offsets=choice.spec)


def _local_view(settings: SparkAppSettings) -> tuple[CheckpointInfo, int]:
    """The checkpoint as read without Spark, and its commit log's format. A checkpoint on a
    store (HDFS, S3) is not read here: it counts as new, so startingOffsets and the state
    store's checks are Spark's, which reads the store (a local folder of the same name is
    another checkpoint); the pins are judged once Spark is up (judge_store_pins)."""
    if not settings.checkpoint.is_local:
        return CheckpointInfo(path=settings.checkpoint.folder, exists=False), 1
    return read_checkpoint(settings.checkpoint.folder), commit_format(settings.checkpoint.folder)[0]


def _judge_pins(
    settings: SparkAppSettings, pinned: Mapping[str, str], committed_format: int
) -> None:
    """What the checkpoint pins against what the app was asked for: refused in one line where
    Spark would fail after planning a batch, a note where it silently keeps the checkpoint's."""
    for note in judge_pins(settings, pinned, committed_format, installed_spark_version()):
        print(note, flush=True)


def judge_store_pins(spark: Any, settings: SparkAppSettings) -> None:
    """The pins of a checkpoint on a store, read through Spark's Hadoop client once the session
    is up (preflight runs before it, without a client for the store); nothing for a local one."""
    if settings.checkpoint.is_local:
        return
    location = settings.checkpoint.location
    try:
        pinned = remote_pins(spark, location)
        committed_format = remote_commit_format(spark, location)
    except Exception:  # Py4J's wrapping of the store's IOException: the query's start meets it too
        return  # and explains it in one line (failures/storage.py); a judgement needs the files
    _judge_pins(settings, pinned, committed_format)


def _start_from_group(
    settings: SparkAppSettings,
    group: str,
    checkpoint_is_new: bool,
    partitions: list[TopicPartition],
) -> StartChoice:
    with GroupOffsets(settings.bootstrap_servers, group) as offsets:
        committed = offsets.committed(partitions)
    return choose_start(
        group,
        checkpoint_is_new=checkpoint_is_new,
        partitions=partitions,
        committed=committed,
        starting_offsets=settings.starting_offsets,
    )
