"""Request handlers of the embedded broker, one module per concern, and the table routing each
Kafka API key to its handler.

A handler is `async (ctx, request, version) -> response | None`: it gets the decoded request and
returns the response body (no header), or None when Kafka sends no response (Produce, acks=0).
Usage: `HANDLERS[ApiKey.Fetch](ctx, request, 12)`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kafka.protocol.api_key import ApiKey
from kafka.protocol.api_message import ApiMessage

from kafka_app.broker.handlers.admin import (
    handle_describe_configs,
    handle_incremental_alter_configs,
)
from kafka_app.broker.handlers.cluster import handle_api_versions, handle_metadata
from kafka_app.broker.handlers.context import BrokerContext
from kafka_app.broker.handlers.create_topics import handle_create_topics
from kafka_app.broker.handlers.fetch import handle_fetch
from kafka_app.broker.handlers.group_apis import GROUP_HANDLERS
from kafka_app.broker.handlers.offsets import handle_delete_records, handle_list_offsets
from kafka_app.broker.handlers.produce import handle_init_producer_id, handle_produce
from kafka_app.broker.handlers.topic_changes import handle_create_partitions, handle_delete_topics

__all__ = ["Handler", "HANDLERS", "BrokerContext"]

# Each handler takes its own request class, hence Any: the table is keyed by the API it serves.
Handler = Callable[[BrokerContext, Any, int], Awaitable[ApiMessage | None]]

HANDLERS: dict[ApiKey, Handler] = {
    ApiKey.ApiVersions: handle_api_versions,
    ApiKey.Metadata: handle_metadata,
    ApiKey.Produce: handle_produce,
    ApiKey.InitProducerId: handle_init_producer_id,
    ApiKey.Fetch: handle_fetch,
    ApiKey.ListOffsets: handle_list_offsets,
    ApiKey.DeleteRecords: handle_delete_records,
    ApiKey.CreateTopics: handle_create_topics,
    ApiKey.DeleteTopics: handle_delete_topics,
    ApiKey.CreatePartitions: handle_create_partitions,
    ApiKey.DescribeConfigs: handle_describe_configs,
    ApiKey.IncrementalAlterConfigs: handle_incremental_alter_configs,
    **GROUP_HANDLERS,
}
