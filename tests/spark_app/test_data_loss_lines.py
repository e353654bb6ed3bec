"""The data-loss words: the error our source raises and the warning it logs read back as the
offsets they name (short-retention and kafka-outage read them); reworded, they are not read."""

from __future__ import annotations

from spark_app.errors import error_in_text
from spark_app.lines.data_loss_lines import (
    could_not_read_text,
    earliest_now_in,
    lost_range_in,
    skipped_ranges_in,
    skipped_text,
)
from spark_app.offsets import TopicPartition
from spark_app.source.data_loss import could_not_read

TP = TopicPartition("Experience", 0)


def test_the_could_not_read_error_names_its_range_and_kafkas_earliest_offset() -> None:
    error = could_not_read(TP, 5, 12, "spark-kafka-source-x", earliest=9)
    text = f"spark_app: {error}"
    assert lost_range_in(text) == (5, 12)
    assert earliest_now_in(text) == 9
    assert error_in_text(text).token == "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"


def test_without_kafkas_earliest_offset_only_the_range_is_named() -> None:
    text = str(could_not_read(TP, 5, 12, "g"))
    assert lost_range_in(text) == (5, 12) and earliest_now_in(text) is None


def test_skip_warnings_read_back_in_order_and_reworded_ones_do_not() -> None:
    log = (
        f"WARN Offset 5 is out of range, and {skipped_text(5, 9)} (GroupId: g).\n"
        f"WARN Offset 9 is out of range, and {skipped_text(9, 12)} (GroupId: g).\n"
    )
    assert skipped_ranges_in(log) == [(5, 9), (9, 12)]
    assert skipped_ranges_in(log.replace("will be skipped", "are skipped")) == []
    assert lost_range_in("Could not read the records [5, 12)") is None


def test_the_connectors_unfilled_template_reads_as_the_same_range() -> None:
    # Spark's connector 4.2.0, word for word as it logged a skip in spark.log (failOnDataLoss=false).
    connector = (
        "Offset MDC[key=OFFSET, value=5] is out of range, and records in "
        "[MDC[key=OFFSET, value=5], MDC[key=UNTIL_OFFSET, value=12]] will be "
        "skippedMessageWithContext((GroupId: g, TopicPartition: Experience-0). "
    )
    assert skipped_ranges_in(connector + skipped_text(12, 20)) == [(5, 12), (12, 20)]


def test_the_connectors_warning_over_several_lines_reads_as_the_same_range() -> None:
    # Spark's connector 4.2.0 in the app's spark.log, word for word (short-retention on
    # embedded/connector): the range spans lines and closes with `]`; its end is exclusive.
    connector = (
        "[WARN] [2026-11-24 12:30:03,630] [KafkaDataConsumer]: \n"
        "The current available offset range is AvailableOffsetRange(29,60).\n"
        " Offset 13 is out of range, and records in\n [13, 19] will be\n"
        " skipped(GroupId: spark-kafka-source-7309-executor, TopicPartition: Experience-0). \n"
    )
    assert skipped_ranges_in(connector + connector.replace("13", "19").replace("19]", "29]")) == [
        (13, 19),
        (19, 29),
    ]


def test_an_offset_that_went_back_reads_the_same_in_the_error_and_the_warning() -> None:
    """Spark 4.2's connector, word for word (broker-failover, apache/connector): the error's
    reason, then KafkaMicroBatchStream's warning with failOnDataLoss=false."""
    from spark_app.lines.data_loss_lines import offset_changes_in

    error = (
        "Reason: Partition Experience-0 offset was changed from 107 to 86. This could be "
        "either 1) a user error ..."
    )
    warning = (
        "[WARN] [KafkaMicroBatchStream]: Partition Experience-0's offset was changed from "
        "107 to 86. This could be either ..."
    )
    assert offset_changes_in(error) == offset_changes_in(warning) == [(107, 86)]
    assert offset_changes_in("nothing here") == []


def _ranges(text: str) -> list[tuple[int, int]]:
    import re

    return [(int(a), int(b)) for a, b in re.findall(r"\[(\d+), (\d+)\)", text)]


def test_a_checkpoint_past_the_topics_end_is_not_an_empty_range_but_another_topic() -> None:
    """After the demo, a new broker's topic is shorter than the demo's checkpoint: the read of
    [33, 40) fails with Kafka's log at [0, 5). No offset was aged out; the way out is a reset,
    not skipping (which once printed "offsets [33, 0) are gone (0 messages)")."""
    from spark_app.failures.kafka import connector_data_loss
    from spark_app.source.data_loss import RESET_WAY_OUT

    ours = str(could_not_read(TP, 33, 40, "g", earliest=0, latest=5))
    without_latest = str(could_not_read(TP, 33, 40, "g", earliest=0))
    reason = could_not_read_text(TP, 33, 40, "spark-kafka-source-x-executor")
    connector = str(
        connector_data_loss(f"not available in Kafka any more; Reason: {reason}", lambda tp: (0, 5))
    )
    for text in (ours, without_latest, connector):
        assert all(start <= end for start, end in _ranges(text)), text
        assert "are gone" not in text and earliest_now_in(text) is None
        assert "points past the topic's latest offset" in text and RESET_WAY_OUT in text
        assert "--fail-on-data-loss false" not in text
        assert lost_range_in(text) == (33, 40)
    assert "Kafka holds offsets [0, 5) of Experience-0 only" in ours


def test_offsets_aged_out_from_the_middle_of_the_range_keep_the_usual_hint() -> None:
    text = str(could_not_read(TP, 5, 12, "g", earliest=9, latest=30))
    assert "offsets [5, 9) are gone (4 messages)" in text and "--fail-on-data-loss false" in text
    beyond = str(could_not_read(TP, 5, 12, "g", earliest=20, latest=30))  # past the range
    assert "offsets [5, 20) are gone (15 messages)" in beyond


def test_the_loss_runs_to_kafkas_earliest_offset_not_to_the_planned_batchs_end() -> None:
    """An attendee's restart after a long pause (issue 51): the planned batch was [24, 25), one
    record, while retention had deleted up to 58. The line said "offsets [24, 25) are gone (1
    messages)"; everything from the checkpoint's offset to Kafka's earliest is lost."""
    from spark_app.failures.kafka import connector_data_loss

    reason = could_not_read_text(TP, 24, 25, "spark-kafka-source-x-executor")
    connector = str(
        connector_data_loss(
            f"not available in Kafka any more; Reason: {reason}", lambda tp: (59, 120)
        )
    )
    ours = str(could_not_read(TP, 24, 25, "g", earliest=59, latest=120))
    for text in (connector, ours):
        assert "so offsets [24, 59) are gone (35 messages)" in text, text
        assert lost_range_in(text) == (24, 25)  # Spark's own words keep the batch's range
        assert earliest_now_in(text) == 59
