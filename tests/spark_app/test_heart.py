"""The heart of exactly-once, without Spark: the running count and the batch handler's write.

`running_count` is called with Spark's own GroupState class (a plain Python object: no JVM is
needed to build one). `BatchHandler.write` runs in a child process, because a negative key
makes it kill its own process, as the seed's halt(-1) did: the child dies mid-batch, and the
next child is the replay a restart does, reading the same journal and output log.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from pyspark.sql import Row
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout
from pyspark.sql.types import LongType, StructField, StructType

from scenarios.checker.verify import verify_file
from spark_app.query.counter import running_count
from spark_app.query.negative_key import CrashLine, crash_line_in
from spark_app.query.sink import JOURNAL_SUFFIX

ROOT = Path(__file__).resolve().parents[2]
QUERY_ID = "6b0c6f0e-1111-2222-3333-444455556666"


def group_state(count: int | None) -> GroupState:
    schema = StructType([StructField("count", LongType())])
    return GroupState(
        Row(count=count) if count is not None else None,
        0,
        -1,
        GroupStateTimeout.NoTimeout,
        False,
        False,
        count is not None,
        False,
        False,
        -1,
        b"",
        schema,
    )


def frame(rows: list[tuple[int, int, str]]) -> pd.DataFrame:
    """(partition, offset, value) rows as the source hands them, in any order."""
    return pd.DataFrame(
        {
            "topic": ["Experience"] * len(rows),
            "partition": [r[0] for r in rows],
            "offset": [r[1] for r in rows],
            "key": [r[2] for r in rows],
            "value": [r[2] for r in rows],
        }
    )


def test_running_count_numbers_rows_after_the_stored_count_in_partition_offset_order() -> None:
    state = group_state(5)
    batches = [frame([(1, 0, "c"), (0, 2, "b")]), frame([]), frame([(0, 1, "a")])]
    [out] = list(running_count((0,), iter(batches), state))
    assert list(zip(out["partition"], out["offset"], out["count"])) == [
        (0, 1, 6),
        (0, 2, 7),
        (1, 0, 8),
    ]
    assert state.get == (8,)


def test_running_count_starts_at_one_without_state_and_leaves_empty_batches_alone() -> None:
    state = group_state(None)
    assert list(running_count((0,), iter([frame([])]), state)) == []
    assert not state.exists
    [out] = list(running_count((0,), iter([frame([(0, 0, "x")])]), state))
    assert list(out["count"]) == [1] and state.get == (1,)


def test_a_replayed_batch_gets_exactly_the_same_counts() -> None:
    batch = [(0, 3, "4"), (0, 2, "3"), (1, 7, "9")]
    first = list(running_count((0,), iter([frame(batch)]), group_state(2)))[0]
    again = list(running_count((0,), iter([frame(list(reversed(batch)))]), group_state(2)))[0]
    assert first.equals(again)


WRITER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from checkpoint_stores import CheckpointPlace
    from spark_app.query.batch_handler import BatchHandler
    from spark_app.query.negative_key import NegativeKeyPolicy
    from spark_app.settings import SparkAppSettings
    from spark_app.lines.output_line import OutputRow
    run = Path(sys.argv[1])
    settings = SparkAppSettings(checkpoint=CheckpointPlace(folder=run / "checkpoints"),
                                log_dir=run / "log",
                                sink=sys.argv[2], on_negative_key=sys.argv[3])
    handler = BatchHandler(settings, NegativeKeyPolicy(sys.argv[3], settings.log_dir, None))
    rows = [OutputRow(*row) for row in json.loads(sys.argv[5])]
    handler.write(int(sys.argv[4]), rows)
""")


def counted(first: int, last: int, negative: int | None = None) -> list[tuple[object, ...]]:
    """Rows for values first..last with count = value, one negative key among them."""
    return [
        ("Experience", str(-v if v == negative else v), str(v), v, 0, v - 1)
        for v in range(first, last + 1)
    ]


def write_batch(
    run: Path,
    batch_id: int,
    rows: list[tuple[object, ...]],
    sink: str = "exactly-once",
    policy: str = "crash-once",
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WRITER, str(run), sink, policy, str(batch_id), json.dumps(rows)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def run(tmp_path: Path) -> Path:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "metadata").write_text(json.dumps({"id": QUERY_ID}))
    return tmp_path


def journal(run: Path) -> dict[str, object]:
    return json.loads((run / "log" / f"streaming-output.log{JOURNAL_SUFFIX}").read_text())


def test_crash_mid_batch_then_replay_writes_every_message_once(run: Path) -> None:
    assert write_batch(run, 0, counted(1, 3)).returncode == 0
    crashed = write_batch(run, 1, counted(4, 8, negative=6))
    assert crashed.returncode == 255
    assert crash_line_in(crashed.stderr) == CrashLine("-6", "6", "crash-once")
    half = verify_file(run / "log" / "streaming-output.log")
    assert (half.highest, half.messages) == (5, 5)  # 4 and 5 written, then the crash
    assert journal(run)["batch_id"] == 1 and journal(run)["end_size"] is None

    assert write_batch(run, 1, counted(4, 8, negative=6)).returncode == 0  # the replay
    report = verify_file(run / "log" / "streaming-output.log")
    assert report.ok and (report.messages, report.final_count) == (8, 8)
    assert journal(run)["end_size"] == (run / "log" / "streaming-output.log").stat().st_size

    size = (run / "log" / "streaming-output.log").stat().st_size
    assert write_batch(run, 1, counted(4, 8, negative=6)).returncode == 0  # done: skipped
    assert (run / "log" / "streaming-output.log").stat().st_size == size


def test_at_least_once_shows_the_half_batch_twice(run: Path) -> None:
    assert write_batch(run, 0, counted(1, 4, negative=3), sink="at-least-once").returncode == 255
    assert write_batch(run, 0, counted(1, 4, negative=3), sink="at-least-once").returncode == 0
    report = verify_file(run / "log" / "streaming-output.log")
    assert report.duplicated == {1: 2, 2: 2} and report.missing == ()


def test_crash_always_rolls_back_to_the_same_bytes_on_every_replay(run: Path) -> None:
    sizes = []
    for _ in range(3):
        done = write_batch(run, 0, counted(1, 4, negative=2), policy="crash-always")
        assert done.returncode == 255
        sizes.append((run / "log" / "streaming-output.log").stat().st_size)
    assert len(set(sizes)) == 1
    report = verify_file(run / "log" / "streaming-output.log")
    assert (report.messages, report.highest) == (1, 1)  # only the row before the poison pill
