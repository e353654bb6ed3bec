"""The shuffle-partitions exhibit's pure parts, without Spark: what a restart rebound, as
spark.log says it (the lines as 4.0.0 and 4.2.0 wrote them, 29 Nov 2026), the state's partitions
as the folder has them, and the outcome held per line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_53942 import (
    BUG,
    SHUFFLE_KEY,
    STATE_KEY,
    rebound,
    shuffles_seen,
    state_partitions,
)
from spark_app.lines.known_bug_table import SHUFFLES_FOLLOWED, SHUFFLES_PINNED, judge

LOG_400 = (
    "[WARN] [2026-11-29 15:16:06,368] [OffsetSeqMetadata]: Updating the value of conf "
    "'spark.sql.shuffle.partitions' in current session from '4' to '1'.\n"
)
LOG_420 = (
    "[INFO] something else\n[WARN] [2026-11-29 15:19:44,633] [OffsetSeqMetadata]: Updating the "
    "value of conf 'spark.sql.streaming.internal.stateStore.partitions' in current session "
    "from '4' to '1'.\n"
)


def test_what_a_restart_rebound_is_read_with_both_values() -> None:
    assert rebound(LOG_400) == {SHUFFLE_KEY: ("4", "1")}
    assert rebound(LOG_420) == {STATE_KEY: ("4", "1")}
    assert rebound("[INFO] nothing\n") == {}


def test_the_shuffles_pinned_on_40_followed_from_41() -> None:
    assert shuffles_seen(rebound(LOG_400)) == SHUFFLES_PINNED
    assert shuffles_seen(rebound(LOG_420)) == SHUFFLES_FOLLOWED


def test_nothing_rebound_is_neither_and_says_so() -> None:
    seen = shuffles_seen({})
    assert seen not in (SHUFFLES_FOLLOWED, SHUFFLES_PINNED) and "neither" in seen
    assert BUG.status_of(seen) is None


def test_the_states_partitions_are_its_numbered_folders(tmp_path: Path) -> None:
    for name in ("0", "2", "_metadata"):
        (tmp_path / "state" / "0" / name).mkdir(parents=True)
    assert state_partitions(tmp_path) == [0, 2]
    assert state_partitions(tmp_path / "none") == []


@pytest.mark.parametrize(
    ("version", "observed", "held"),
    [
        ("4.0.0", SHUFFLES_PINNED, True),
        ("4.0.0", SHUFFLES_FOLLOWED, False),  # a backport nobody recorded
        ("4.1.1", SHUFFLES_FOLLOWED, True),
        ("4.2.0", SHUFFLES_FOLLOWED, True),
        ("4.2.0", SHUFFLES_PINNED, False),  # the change gone: a regression
    ],
)
def test_the_restarts_outcome_is_held_against_its_line(
    version: str, observed: str, held: bool
) -> None:
    assert judge(BUG, version, observed).held is held
