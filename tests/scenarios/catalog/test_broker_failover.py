"""broker-failover without Kafka: which error line is the app's. (Its skip on a stack with one
broker is tested with every multi-broker scenario's in tests/scenarios/run/test_runner.py.)"""

from __future__ import annotations


def test_the_apps_error_is_its_last_line_not_a_warning_before_it() -> None:
    from scenarios.catalog.broker_failover import _last_error_line
    from spark_app.errors import PartitionOffsetChangedError, error_in_text

    output = (
        "WARN KafkaSource: Error in attempt 1 getting Kafka offsets: KAFKA_UNREACHABLE: "
        "no Kafka broker answers at 127.0.0.1:1\n"
        "spark_app: KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED: Partition Experience-0 "
        "offset was changed from 132 to 108.\n"
    )
    assert isinstance(error_in_text(_last_error_line(output)), PartitionOffsetChangedError)
    assert _last_error_line("no error here") == ""
