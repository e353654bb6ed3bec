"""The chaos scenario's reasoning, without Spark: where a kill landed and which duplicates follow.

Also the scenario options on the command line (`run chaos --kills N --seed S`), which chaos is
the first to use.
"""

from __future__ import annotations

import io
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from scenarios.catalog.chaos import SCENARIO, _moments, _predicted_duplicates
from scenarios.checker.kill_landing import KillLanding, batch_values
from scenarios.cli import _with_options, main_parser
from scenarios.engine.faults.kills import KILL_MOMENTS, _batch_files, landing_of, query_output
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.engine.stage import Stage
from scenarios.report.narration import Narrator
from spark_app.lines.query_rows import batch_file, rows_text
from spark_app.offsets import TopicPartition
from spark_app.runtime.atomic_file import write_atomically
from tests.scenarios.more_helpers import idle_stage, write_batch, write_output

P0, P1, P2 = (TopicPartition("Experience", p) for p in range(3))


def test_batch_values_single_partition_is_offset_plus_one() -> None:
    assert batch_values({P0: 4}, {P0: 7}, partitions=1) == (5, 6, 7)


def test_batch_values_follow_the_producers_round_robin() -> None:
    # Values 1..9 over 3 partitions: p0 holds 1,4,7; p1 2,5,8; p2 3,6,9.
    assert batch_values({P0: 1, P1: 0, P2: 2}, {P0: 3, P1: 1, P2: 3}, partitions=3) == (2, 4, 7, 9)


def test_batch_values_of_a_first_batch_start_at_zero() -> None:
    assert batch_values(None, {P0: 2}, partitions=1) == (1, 2)


def test_landing_between_batches(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_output(stage.folders.output_log, [1, 2, 3])
    landing = landing_of(stage, "batch boundary")
    assert landing.batch_id is None and landing.landed == "between batches"


def test_landing_mid_batch_before_the_output(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_batch(stage.folders.checkpoints, 1, {0: 5}, committed=False)
    write_output(stage.folders.output_log, [1, 2, 3])
    landing = landing_of(stage, "mid-batch")
    assert landing.batch_id == 1 and landing.batch_values == (4, 5)
    assert landing.written == () and landing.landed == "mid-batch, before the output"


def test_landing_after_the_output_before_the_commit(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_batch(stage.folders.checkpoints, 1, {0: 5}, committed=False)
    write_output(stage.folders.output_log, [1, 2, 3, 4, 5])
    landing = landing_of(stage, "mid-write")
    assert landing.written == (4, 5) and landing.seen_before == {4: 1, 5: 1}
    assert landing.landed == "after the output, before the commit"


def _query_stage(root: Path) -> Stage:
    """A stage of a run with `--query` that has started nothing: no output log, batch files."""
    settings = RunSettings(query=PROJECT_ROOT / "queries" / "window_count.py")
    return Stage(
        "test", settings, root, listeners=[Narrator(stream=io.StringIO(), rich=False).hear]
    )


def test_with_a_query_a_pending_batch_without_its_file_is_before_the_output(
    tmp_path: Path,
) -> None:
    stage = _query_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_batch(stage.folders.checkpoints, 1, {0: 5}, committed=False)
    batch_file(query_output(stage), 0).parent.mkdir(parents=True)
    batch_file(query_output(stage), 0).write_text(rows_text([{"records": 3}], batch_id=0))
    landing = landing_of(stage, "mid-batch")
    assert landing.batch_id == 1 and landing.batch_values == (4, 5)
    assert landing.file_rows is None and landing.landed == "mid-batch, before the output"
    assert "had not written batch-1's file" in landing.describe()


def test_with_a_query_a_pending_batch_with_its_file_is_after_the_output(tmp_path: Path) -> None:
    stage = _query_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_batch(stage.folders.checkpoints, 1, {0: 5}, committed=False)
    folder = query_output(stage)
    folder.mkdir(parents=True)
    batch_file(folder, 1).write_text(rows_text([{"records": 1}, {"records": 2}], batch_id=1))
    landing = landing_of(stage, "mid-write")
    assert landing.file_rows == 2 and landing.landed == "after the output, before the commit"
    assert "had written batch-1's file, 2 row(s)" in landing.describe()


def test_with_a_query_an_empty_batch_file_is_still_the_output(tmp_path: Path) -> None:
    # A batch that closed no window writes an empty file: the sink ran, the commit had not.
    stage = _query_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    write_batch(stage.folders.checkpoints, 1, {0: 3}, committed=False)
    folder = query_output(stage)
    folder.mkdir(parents=True)
    batch_file(folder, 1).write_text("")
    landing = landing_of(stage, "mid-write")
    assert landing.batch_values == () and landing.file_rows == 0
    assert landing.landed == "after the output, before the commit"


def test_with_a_query_every_batch_committed_lands_between_batches(tmp_path: Path) -> None:
    stage = _query_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 3})
    landing = landing_of(stage, "batch boundary")
    assert landing.query and landing.landed == "between batches"


def test_a_batch_file_written_again_is_seen_as_written(tmp_path: Path) -> None:
    # What the mid-write aim waits for with a query: a new batch file, or a replay's rewrite.
    write_atomically(batch_file(tmp_path, 4), "{}\n")
    (tmp_path / ".batch-00000005.jsonl.1.x.tmp").write_text("")  # a file being written
    before = _batch_files(tmp_path)
    assert [name for name, _ in before] == ["batch-00000004.jsonl"]
    write_atomically(batch_file(tmp_path, 4), "{}\n")
    assert _batch_files(tmp_path) != before
    assert _batch_files(tmp_path / "none") == frozenset()


def test_predicted_duplicates_add_one_write_per_caught_value() -> None:
    caught = KillLanding("mid-write", 4, (7, 8), (7, 8), {7: 1, 8: 1})
    missed = KillLanding("mid-batch", 6, (11,), (), {})
    assert _predicted_duplicates(Counter([1, 2, 3]), [caught, missed]) == {7: 2, 8: 2}


def test_a_replay_caught_again_is_written_a_third_time() -> None:
    first = KillLanding("mid-write", 4, (7,), (7,), {7: 1})
    again = KillLanding("mid-write", 4, (7,), (7,), {7: 2})
    assert _predicted_duplicates(Counter(), [first, again]) == {7: 3}


def test_moments_cover_each_kind_in_turn_and_repeat_with_the_seed() -> None:
    moments = _moments(6, random.Random(5))
    assert sorted(moments[:3]) == sorted(KILL_MOMENTS) == sorted(moments[3:])
    assert moments == _moments(6, random.Random(5))
    assert len(_moments(2, random.Random(5))) == 2


def test_kills_and_seed_reach_the_run_function() -> None:
    args = main_parser().parse_args(["run", "chaos", "--kills", "5", "--seed", "7"])
    bound = _with_options(SCENARIO, args)
    assert bound.run.keywords == {"kills": 5, "seed": 7}  # type: ignore[attr-defined]


def test_without_options_the_scenario_is_unchanged() -> None:
    args = main_parser().parse_args(["run", "chaos"])
    assert _with_options(SCENARIO, args) is SCENARIO


def test_an_option_of_a_scenario_not_run_is_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "run", "parallelism", "--kills", "3"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "scenarios: --kills is an option of chaos, which is not being run"


@pytest.mark.parametrize("value", ["x", "1.5"])
def test_kills_must_be_a_number(value: str) -> None:
    with pytest.raises(SystemExit):
        main_parser().parse_args(["run", "chaos", "--kills", value])
