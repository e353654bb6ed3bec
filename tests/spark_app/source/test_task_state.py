"""What the source's tasks carry and keep: the reader Spark pickles to each task, and the
connected client a Python worker keeps between tasks."""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from spark_app.source import kafka_source
from spark_app.source.kafka_source import KafkaStreamReader
from spark_app.source.options import SourceOptions


def _options(bootstrap: str, **extra: str) -> SourceOptions:
    return SourceOptions.parse(
        {
            "kafka.bootstrap.servers": bootstrap,
            "subscribe": "Experience",
            "startingOffsets": "earliest",
            **extra,
        }
    )


def test_a_task_receives_every_attribute_but_the_drivers_clients() -> None:
    reader = KafkaStreamReader(_options("127.0.0.1:9"))
    reader.added_later = {"batch": 7}  # an attribute a future change adds
    reader._latest = {"any": "planning state"}
    task_copy = pickle.loads(pickle.dumps(reader))
    assert task_copy.added_later == {"batch": 7}
    assert task_copy.options == reader.options and task_copy.group_id == reader.group_id
    assert task_copy._latest is None and task_copy._reader is None and task_copy._group is None


@pytest.fixture
def task_clients() -> Iterator[None]:
    """The worker's client cache, emptied after the test (its clients stopped)."""
    yield
    for client in kafka_source._TASK_CLIENTS.values():
        client.stop()
    kafka_source._TASK_CLIENTS.clear()


def test_two_queries_in_one_worker_keep_their_own_settings(embedded_broker, task_clients) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    first = _options(bootstrap, **{"kafka.request.timeout.ms": "31000"})
    second = _options(
        bootstrap, **{"kafka.request.timeout.ms": "42000", "kafkaConsumer.pollTimeoutMs": "5000"}
    )
    one, other = kafka_source._task_client(first), kafka_source._task_client(second)
    assert one is not other
    assert one.consumer.config["request_timeout_ms"] == 31000
    assert other.consumer.config["request_timeout_ms"] == 42000
    assert kafka_source._task_client(first) is one  # a later task of the same query reuses it
