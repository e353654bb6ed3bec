"""When retention runs: Kafka's initial delay, then one pass every check interval.

The rules (which segments expire) are storage's; this task only calls
`storage.enforce_retention()` on the broker's loop and says in kafka.log, in words, what went.
Usage: `task = asyncio.create_task(run_retention(storage, settings))`; cancel it to stop.
"""

from __future__ import annotations

import asyncio
import logging

from kafka_app.broker.errors import BrokerError
from kafka_app.broker.settings import BrokerSettings
from kafka_app.broker.storage.data_dir import Storage
from kafka_app.broker.storage.retention import RetentionEvent
from kafka_app.broker.storage.topic_config import TopicConfig

__all__ = ["run_retention", "describe_event"]

log = logging.getLogger(__name__)


async def run_retention(storage: Storage, settings: BrokerSettings) -> None:
    """Run retention passes forever (until cancelled)."""
    log.info(
        "Retention checks every %gs, the first after %gs",
        settings.retention_check_sec,
        settings.retention_initial_delay_sec,
    )
    # A schedule, not a synchronisation: Kafka itself sleeps between retention passes.
    await asyncio.sleep(settings.retention_initial_delay_sec)
    while True:
        _one_pass(storage)
        await asyncio.sleep(settings.retention_check_sec)


def _one_pass(storage: Storage) -> None:
    try:
        events = storage.enforce_retention()
    except (BrokerError, OSError) as error:
        # A failed pass (say, a file another process holds) must not end retention for good.
        log.error("Retention pass failed, will retry at the next check: %s", error)
        return
    for event in events:
        log.info(describe_event(event, storage.topic_config(event.topic)))


def describe_event(event: RetentionEvent, config: TopicConfig) -> str:
    """E.g. 'Deleted 3 segment(s) (offsets 0..41) of Experience-0 (retention.ms=15000 exceeded);
    log start offset 0 -> 42'."""
    limit = config.retention_bytes if event.reason == "retention.bytes" else config.retention_ms
    count = len(event.deleted_segments)
    last = event.new_log_start_offset - 1
    return (
        f"Deleted {count} segment(s) (offsets {event.old_log_start_offset}..{last}) of "
        f"{event.topic}-{event.partition} ({event.reason}={limit} exceeded); "
        f"log start offset {event.old_log_start_offset} -> {event.new_log_start_offset}"
    )
