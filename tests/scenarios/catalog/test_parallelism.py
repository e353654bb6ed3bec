"""The parallelism scenario's reading of the Spark app's per-batch console lines, without Spark
(through the batch line's own parser, spark_app/lines/batch_line.py)."""

from __future__ import annotations

from scenarios.catalog.parallelism import _partition_ends
from spark_app.lines.batch_line import parse_batch_lines as batch_lines
from spark_app.offsets import TopicPartition

P = [TopicPartition("Experience", p) for p in range(3)]


def test_batch_lines_give_one_range_per_partition() -> None:
    output = (
        "WARNING: Using incubator modules: jdk.incubator.vector\n"
        "Streaming Experience from 127.0.0.1:1, checkpoints in c, output in o\n"
        "batch 0: Experience-0 [0, 3), Experience-1 [0, 2), Experience-2 [0, 2) rows=7 "
        "count=7 took 900 ms\n"
        "batch 1: Experience-0 [3, 4), Experience-2 [2, 3) rows=2 count=9 took 80 ms\n"
    )
    first, second = batch_lines(output)
    assert first.batch_id == 0 and first.rows == 7
    assert first.start == {P[0]: 0, P[1]: 0, P[2]: 0}
    assert first.end == {P[0]: 3, P[1]: 2, P[2]: 2}
    assert second.start == {P[0]: 3, P[2]: 2} and second.end == {P[0]: 4, P[2]: 3}


def test_topic_names_with_dashes_keep_their_partition_apart() -> None:
    (line,) = batch_lines("batch 3: Experience-parallelism-17-1 [5, 8) rows=3 count=3 took 1 ms\n")
    assert line.end == {TopicPartition("Experience-parallelism-17", 1): 8}


def test_a_new_querys_first_batch_has_no_start() -> None:
    (line,) = batch_lines(
        "batch 0: Experience-0 [start, 4), Experience-1 [?, 3) rows=7 count=7 took 5 ms\n"
    )
    assert line.start == {} and line.end == {P[0]: 4, P[1]: 3}


def test_no_batch_lines_in_other_output() -> None:
    assert batch_lines("Stopped cleanly; a restart continues from the checkpoint.\n") == []


def test_partition_ends_follow_the_round_robin() -> None:
    assert _partition_ends(10) == [4, 3, 3]  # p0: 1,4,7,10; p1: 2,5,8; p2: 3,6,9
    assert _partition_ends(2) == [1, 1, 0]
