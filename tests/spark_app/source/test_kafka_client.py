"""How the source's Kafka client reports Kafka's failures: every call a task or the planner
makes turns kafka-python's errors into ours, the same way, without a broker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kafka.errors import (
    IllegalGenerationError,
    KafkaConnectionError,
    KafkaTimeoutError,
    NodeNotReadyError,
    OffsetOutOfRangeError,
)

from spark_app.errors import GroupOffsetsError, KafkaUnreachableError
from spark_app.offsets import TopicPartition
from spark_app.source.kafka_client import GroupOffsets, OffsetGone, TopicClient

SERVERS = "127.0.0.1:9"
TP = TopicPartition("Experience", 0)


class _FailingConsumer:
    """A kafka-python consumer whose `method` raises `error`; its other calls succeed."""

    def __init__(self, method: str, error: Exception) -> None:
        self.method, self.error = method, error

    def __getattr__(self, name: str) -> Callable[..., Any]:
        answers = {"partitions_for_topic": {0}, "topics": {"Experience"}}

        def call(*args: object, **kwargs: object) -> object:
            if name == self.method:
                raise self.error
            return answers.get(name)

        return call


def _with(
    holder: TopicClient | GroupOffsets, method: str, error: Exception
) -> TopicClient | GroupOffsets:
    holder._consumer = _FailingConsumer(method, error)  # type: ignore[assignment]
    return holder


CALLS: dict[str, Callable[[TopicClient], object]] = {
    "topics": lambda c: c.topics(),
    "partitions_for_topic": lambda c: c.partitions("Experience"),
    "end_offsets": lambda c: c.latest("Experience"),
    "beginning_offsets": lambda c: c.earliest_of([TP]),
    "offsets_for_times": lambda c: c.offsets_for_times({TP: 0}),
    "poll": lambda c: list(c.fetch_range(TP, 0, 10)),
}


@pytest.mark.parametrize("method", sorted(CALLS))
@pytest.mark.parametrize("error", [NodeNotReadyError(), KafkaTimeoutError(), OSError("reset")])
def test_every_call_reports_an_unreachable_kafka_by_its_address(
    method: str, error: Exception
) -> None:
    client = _with(TopicClient(SERVERS), method, error)
    with pytest.raises(
        KafkaUnreachableError, match=f"{SERVERS} \\({type(error).__name__}\\).*python -m kafka_app"
    ) as raised:
        CALLS[method](client)  # type: ignore[arg-type]
    assert raised.value.__cause__ is error  # the original stays on the chain for spark.log


def test_a_deleted_offset_is_not_taken_for_an_unreachable_kafka() -> None:
    client = _with(TopicClient(SERVERS), "poll", OffsetOutOfRangeError())
    with pytest.raises(OffsetGone) as gone:
        list(client.fetch_range(TP, 5, 10))  # type: ignore[union-attr]
    assert gone.value.offset == 5


def test_a_group_refusing_a_commit_is_named_as_such() -> None:
    group = _with(GroupOffsets(SERVERS, "manual-offsets"), "commit", IllegalGenerationError())
    with pytest.raises(
        GroupOffsetsError,
        match="would not store offsets for consumer group manual-offsets .*IllegalGenerationError",
    ):
        group.commit({TP: 3})  # type: ignore[union-attr]


def test_a_group_that_cannot_be_reached_is_an_unreachable_kafka() -> None:
    group = _with(GroupOffsets(SERVERS, "manual-offsets"), "committed", KafkaConnectionError())
    with pytest.raises(KafkaUnreachableError, match=SERVERS):
        group.committed([TP])  # type: ignore[union-attr]
