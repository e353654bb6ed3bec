"""The data-loss words: the error our source raises and the warning it logs read back as the
offsets they name (short-retention and kafka-outage read them); reworded, they are not read."""

from __future__ import annotations

from spark_app.data_loss_lines import (earliest_now_in, lost_range_in, skipped_ranges_in,
                                       skipped_text)
from spark_app.errors import error_in_text
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
    log = (f"WARN Offset 5 is out of range, and {skipped_text(5, 9)} (GroupId: g).\n"
           f"WARN Offset 9 is out of range, and {skipped_text(9, 12)} (GroupId: g).\n")
    assert skipped_ranges_in(log) == [(5, 9), (9, 12)]
    assert skipped_ranges_in(log.replace("will be skipped", "are skipped")) == []
    assert lost_range_in("Could not read the records [5, 12)") is None


def test_the_connectors_unfilled_template_reads_as_the_same_range() -> None:
    # Spark's connector 4.2.0, word for word as it logged a skip in spark.log (failOnDataLoss=false).
    connector = ("Offset MDC[key=OFFSET, value=5] is out of range, and records in "
                 "[MDC[key=OFFSET, value=5], MDC[key=UNTIL_OFFSET, value=12]] will be "
                 "skippedMessageWithContext((GroupId: g, TopicPartition: Experience-0). ")
    assert skipped_ranges_in(connector + skipped_text(12, 20)) == [(5, 12), (12, 20)]


def test_the_connectors_warning_over_several_lines_reads_as_the_same_range() -> None:
    # Spark's connector 4.2.0 in the app's spark.log, word for word (short-retention on
    # embedded/connector): the range spans lines and closes with `]`; its end is exclusive.
    connector = ("[WARN] [2026-11-24 12:30:03,630] [KafkaDataConsumer]: \n"
                 "The current available offset range is AvailableOffsetRange(29,60).\n"
                 " Offset 13 is out of range, and records in\n [13, 19] will be\n"
                 " skipped(GroupId: spark-kafka-source-7309-executor, TopicPartition: Experience-0). \n")
    assert skipped_ranges_in(connector + connector.replace("13", "19").replace("19]", "29]")) == [
        (13, 19), (19, 29)]


def test_an_offset_that_went_back_reads_the_same_in_the_error_and_the_warning() -> None:
    """Spark 4.2's connector, word for word (broker-failover, apache/connector): the error's
    reason, then KafkaMicroBatchStream's warning with failOnDataLoss=false."""
    from spark_app.data_loss_lines import offset_changes_in

    error = ("Reason: Partition Experience-0 offset was changed from 107 to 86. This could be "
             "either 1) a user error ...")
    warning = ("[WARN] [KafkaMicroBatchStream]: Partition Experience-0's offset was changed from "
               "107 to 86. This could be either ...")
    assert offset_changes_in(error) == offset_changes_in(warning) == [(107, 86)]
    assert offset_changes_in("nothing here") == []
