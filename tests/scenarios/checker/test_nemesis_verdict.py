"""The nemesis's checker (scenarios/checker/nemesis_verdict.py), rule by rule, on crafted runs:
what Kafka acknowledged, what the topic still holds, what retention deleted and when, the
faults, and the output log."""

from __future__ import annotations

from scenarios.checker.fault_history import FaultSpan
from scenarios.checker.nemesis_verdict import (
    Acked,
    KafkaDeletion,
    deletions_from_samples,
    judge_nemesis,
    lost_offset_ranges,
)
from scenarios.checker.verify import ValueRange, verify

STAMP = "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: "


def output(values: list[int]) -> list[str]:
    """An output log writing `values` in order, the counts running 1, 2, 3…"""
    return [
        line
        for count, value in enumerate(values, start=1)
        for line in (f"{STAMP}Count = {count}\n", f"{STAMP}Experience: {value} -> {value}\n")
    ]


def acked(last: int) -> list[Acked]:
    """Values 1..last at offsets 0..last-1, one sent a second from Unix time 1000."""
    return [Acked(v, v - 1, 1000.0 + v) for v in range(1, last + 1)]


# Two faults: a pause held from wall 1010 to 1020 (t 10..20), a kill at wall 1030 (t 30).
SPANS = [
    FaultSpan(1, "pause", "the app", 10.0, 20.0, 1010.0, 1020.0, "SIGCONT"),
    FaultSpan(2, "kill", "mid-batch", 30.0, 30.1, 1030.0, 1030.1, "started again"),
]


def judge(
    written: list[int],
    last: int = 40,
    held: list[int] | None = None,
    earliest: int = 0,
    deletions: list[KafkaDeletion] | None = None,
    short: bool = False,
):
    return judge_nemesis(
        verify(output(written)),
        acked(last),
        range(1, last + 1) if held is None else held,
        earliest,
        deletions or [],
        SPANS,
        short=short,
    )


def test_every_value_once_is_ok() -> None:
    verdict = judge(list(range(1, 41)))
    assert verdict.ok
    assert verdict.summary_lines() == ["OK: every value sent counted exactly once (40 sent)"]


def test_a_missing_value_is_spark_failure_after_the_fault_active_when_it_was_sent() -> None:
    verdict = judge([v for v in range(1, 41) if v not in (15, 16)])
    assert not verdict.ok and verdict.spark_failed and not verdict.kafka_failed
    assert verdict.missing == (ValueRange(15, 16),)
    assert verdict.wrong_from == 15
    assert verdict.culprit == SPANS[0]  # value 15 was sent at 1015, during the pause
    assert "the output went wrong at value 15, after fault #1 pause" in verdict.summary_lines()[-1]


def test_a_value_written_twice_names_the_first_fault_after_it_was_sent() -> None:
    values = list(range(1, 41))
    values.insert(26, 25)  # 25 again, as a replay after the kill would write it
    verdict = judge(values)
    assert verdict.duplicated == {25: 2}
    assert verdict.culprit == SPANS[1]  # sent at 1025, after the pause was healed
    assert verdict.summary_lines()[0].startswith("NOT OK: Spark failed")


def test_a_value_never_sent_is_a_failure() -> None:
    verdict = judge([*range(1, 41), 99])
    assert verdict.not_sent == (ValueRange(99, 99),)
    assert not verdict.ok


def test_a_value_kafka_acknowledged_and_lost_is_kafkas_failure_not_sparks() -> None:
    held = [v for v in range(1, 41) if v != 20]
    verdict = judge([v for v in range(1, 41) if v != 20], held=held)
    assert verdict.kafka_lost == (ValueRange(20, 20),)
    assert verdict.kafka_failed and not verdict.spark_failed
    assert verdict.summary_lines()[0].startswith("NOT OK: Kafka failed")
    assert "Kafka's failure: 1 value(s) Kafka acknowledged are gone" in verdict.summary_lines()[1]


def test_what_retention_deleted_is_not_kafkas_failure() -> None:
    # Values 1..10 aged out (earliest 10); the app had read them all: nothing lost at all.
    verdict = judge(list(range(1, 41)), held=list(range(11, 41)), earliest=10)
    assert verdict.ok


def test_short_retention_names_what_it_deleted_before_the_app_read_it() -> None:
    # At t 18 (during the pause) retention deleted offsets 5..14; the checkpoint was at 8.
    deletion = KafkaDeletion(18.0, 5, 15, 8)
    written = [v for v in range(1, 41) if not 9 <= v <= 15]
    verdict = judge(
        written, held=list(range(16, 41)), earliest=15, deletions=[deletion], short=True
    )
    assert verdict.ok
    [loss] = verdict.retention_lost
    assert loss.values == ValueRange(9, 15) and loss.offsets == (8, 14)
    assert loss.words() == (
        "values 9..15 (offsets 8..14): deleted by retention at 18.0 s before the app read them "
        "(during fault #1 pause (10.0 s to 20.0 s))"
    )
    assert "7 deleted by retention before they were read, each named" in verdict.summary_lines()[0]


def test_short_retention_does_not_excuse_what_the_app_had_read() -> None:
    # The checkpoint had committed offset 12 before retention deleted 5..14: 10..12 were read,
    # so their absence is Spark's, not retention's.
    deletion = KafkaDeletion(18.0, 5, 15, 12)
    written = [v for v in range(1, 41) if not 10 <= v <= 15]
    verdict = judge(
        written, held=list(range(16, 41)), earliest=15, deletions=[deletion], short=True
    )
    assert verdict.missing == (ValueRange(10, 12),)
    assert [loss.values for loss in verdict.retention_lost] == [ValueRange(13, 15)]
    assert not verdict.ok


def test_with_endless_retention_nothing_may_be_missing() -> None:
    deletion = KafkaDeletion(18.0, 5, 15, 8)
    written = [v for v in range(1, 41) if not 9 <= v <= 15]
    verdict = judge(written, held=list(range(16, 41)), earliest=15, deletions=[deletion])
    assert verdict.missing == (ValueRange(9, 15),) and not verdict.ok


def test_deletions_are_read_from_samples_with_the_commit_seen_before() -> None:
    samples = [
        (0.5, 0, None),
        (1.0, 0, 4),
        (1.5, None, None),  # Kafka did not answer: a gap
        (2.0, 6, 5),
        (2.5, 6, 9),
        (3.0, 12, 9),
    ]
    assert deletions_from_samples(samples) == [
        KafkaDeletion(2.0, 0, 6, 4),
        KafkaDeletion(3.0, 6, 12, 9),
    ]
    assert lost_offset_ranges(deletions_from_samples(samples)) == [(4, 6), (9, 12)]
    following = [KafkaDeletion(1.0, 0, 6, None), KafkaDeletion(2.0, 6, 9, 3)]
    assert lost_offset_ranges(following) == [(0, 9)]


def test_losses_one_check_after_another_while_one_fault_held_are_named_as_one() -> None:
    deletions = [KafkaDeletion(12.0, 5, 8, 5), KafkaDeletion(14.0, 8, 11, 5)]
    deletions.append(KafkaDeletion(31.0, 11, 13, 11))  # after the kill: another range
    written = [v for v in range(1, 41) if not 6 <= v <= 13]
    verdict = judge(written, held=list(range(14, 41)), earliest=13, deletions=deletions, short=True)
    assert verdict.ok
    assert [loss.words() for loss in verdict.retention_lost] == [
        "values 6..11 (offsets 5..10): deleted by retention between 12.0 s and 14.0 s before "
        "the app read them (during fault #1 pause (10.0 s to 20.0 s))",
        "values 12..13 (offsets 11..12): deleted by retention at 31.0 s before the app read "
        "them (after fault #2 kill at 30.0 s)",
    ]
