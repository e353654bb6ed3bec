"""The producer's line: what it prints reads back as the same message, the seed's padded offsets
too, and a reworded line is not read (the demo, the stage and the sent record all use this)."""

from __future__ import annotations

from kafka_app.message_line import ProducerLine, format_message, parse_message
from kafka_app.topic_offsets import OffsetWindow


def test_a_printed_message_reads_back_as_the_same_message() -> None:
    for key, value in ((7, 7), (-110, 110)):
        line = format_message(
            "Experience-short-retention-17", OffsetWindow(89, 109, {}), key, value
        )
        assert parse_message(line) == ProducerLine(
            "Experience-short-retention-17", 89, 109, key, value
        )


def test_the_seeds_padding_is_read_and_other_text_is_not() -> None:
    assert parse_message("Experience [ 89: 109]: 109 -> 109") == ProducerLine(
        "Experience", 89, 109, 109, 109
    )
    for other in (
        "Experience [0:1]: 1 => 1",
        "Experience: 1 -> 1",
        "Press Enter for a negative key",
    ):
        assert parse_message(other) is None


def test_any_message_line_is_told_from_other_lines_whatever_its_key_and_value() -> None:
    from kafka_app.message_line import is_message_line

    assert is_message_line("Experience [0:3]: 3 -> 3", "Experience")
    assert is_message_line('Mine [0:1]: zurich -> {"temp":7.5}', "Mine")
    assert not is_message_line("Experience [0:3]: 3 -> 3", "Other")
    assert not is_message_line("producer started: Kafka 127.0.0.1:9092", "Experience")
