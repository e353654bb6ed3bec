"""The shuffle-partitions exhibit's pure parts, without Spark: a restart's offsets file read as
the new number for the stateless shuffles or the old one for all, the state's partitions as
the folder has them, and the outcome held per line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_53942 import (
    ASKED_PARTITIONS,
    BUG,
    FIRST_PARTITIONS,
    SHUFFLE_KEY,
    STATE_KEY,
    shuffles_seen,
    state_partitions,
)
from spark_app.lines.known_bug_table import SHUFFLES_FOLLOWED, SHUFFLES_PINNED, judge


def test_the_new_number_with_the_state_kept_apart_is_the_41_behaviour() -> None:
    conf = {SHUFFLE_KEY: str(ASKED_PARTITIONS), STATE_KEY: str(FIRST_PARTITIONS)}
    assert shuffles_seen(conf) == SHUFFLES_FOLLOWED


def test_the_old_number_for_everything_is_pinned_with_or_without_the_state_setting() -> None:
    assert shuffles_seen({SHUFFLE_KEY: str(FIRST_PARTITIONS)}) == SHUFFLES_PINNED
    conf = {SHUFFLE_KEY: str(FIRST_PARTITIONS), STATE_KEY: str(FIRST_PARTITIONS)}
    assert shuffles_seen(conf) == SHUFFLES_PINNED


def test_the_state_following_the_new_number_is_neither_and_says_what_it_read() -> None:
    # The state spread over the new number by a restart would be a third behaviour (and a
    # broken checkpoint): the outcome names both settings.
    conf = {SHUFFLE_KEY: str(ASKED_PARTITIONS), STATE_KEY: str(ASKED_PARTITIONS)}
    seen = shuffles_seen(conf)
    assert seen not in (SHUFFLES_FOLLOWED, SHUFFLES_PINNED)
    assert f"{STATE_KEY} = {ASKED_PARTITIONS}" in seen
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
