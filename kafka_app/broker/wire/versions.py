"""Which Kafka APIs, in which versions, the embedded broker speaks, and the codec class for each.

The ranges come from /work/shared/kafka-broker.md: the highest version each client uses, kept
below the versions that name topics by id. The classes are kafka-python's, generated from Kafka's
own JSON message specs, so decoding a request and encoding a response follow Kafka's spec exactly.

Usage: `API_VERSIONS[ApiKey.Fetch]` -> `ApiSpec(request=FetchRequest, response=FetchResponse, 4, 12)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.protocol.admin.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafka.protocol.admin.topics import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreateTopicsRequest,
    CreateTopicsResponse,
    DeleteRecordsRequest,
    DeleteRecordsResponse,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)
from kafka.protocol.api_key import ApiKey
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.consumer.fetch import FetchRequest, FetchResponse
from kafka.protocol.consumer.group import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from kafka.protocol.consumer.offsets import ListOffsetsRequest, ListOffsetsResponse
from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafka.protocol.metadata.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse
from kafka.protocol.metadata.metadata import MetadataRequest, MetadataResponse
from kafka.protocol.producer.produce import ProduceRequest, ProduceResponse
from kafka.protocol.producer.transaction import InitProducerIdRequest, InitProducerIdResponse

__all__ = ["ApiSpec", "API_VERSIONS", "ApiKey"]


@dataclass(frozen=True)
class ApiSpec:
    """One API we answer: its codec classes and the version range we advertise."""

    request: type[ApiMessage]
    response: type[ApiMessage]
    min_version: int
    max_version: int

    def supports(self, version: int) -> bool:
        return self.min_version <= version <= self.max_version


API_VERSIONS: dict[ApiKey, ApiSpec] = {
    ApiKey.Produce: ApiSpec(ProduceRequest, ProduceResponse, 0, 9),
    ApiKey.Fetch: ApiSpec(FetchRequest, FetchResponse, 4, 12),
    ApiKey.ListOffsets: ApiSpec(ListOffsetsRequest, ListOffsetsResponse, 1, 9),
    ApiKey.Metadata: ApiSpec(MetadataRequest, MetadataResponse, 0, 12),
    ApiKey.OffsetCommit: ApiSpec(OffsetCommitRequest, OffsetCommitResponse, 2, 9),
    ApiKey.OffsetFetch: ApiSpec(OffsetFetchRequest, OffsetFetchResponse, 1, 9),
    ApiKey.FindCoordinator: ApiSpec(FindCoordinatorRequest, FindCoordinatorResponse, 0, 6),
    ApiKey.JoinGroup: ApiSpec(JoinGroupRequest, JoinGroupResponse, 0, 9),
    ApiKey.Heartbeat: ApiSpec(HeartbeatRequest, HeartbeatResponse, 0, 4),
    ApiKey.LeaveGroup: ApiSpec(LeaveGroupRequest, LeaveGroupResponse, 0, 5),
    ApiKey.SyncGroup: ApiSpec(SyncGroupRequest, SyncGroupResponse, 0, 5),
    ApiKey.ApiVersions: ApiSpec(ApiVersionsRequest, ApiVersionsResponse, 0, 4),
    ApiKey.CreateTopics: ApiSpec(CreateTopicsRequest, CreateTopicsResponse, 2, 7),
    ApiKey.DeleteRecords: ApiSpec(DeleteRecordsRequest, DeleteRecordsResponse, 0, 2),
    # Kafka 4 serves DeleteTopics 1-6; v6 names topics by id, so we stop at 5.
    ApiKey.DeleteTopics: ApiSpec(DeleteTopicsRequest, DeleteTopicsResponse, 1, 5),
    ApiKey.CreatePartitions: ApiSpec(CreatePartitionsRequest, CreatePartitionsResponse, 0, 3),
    ApiKey.InitProducerId: ApiSpec(InitProducerIdRequest, InitProducerIdResponse, 0, 4),
    ApiKey.DescribeConfigs: ApiSpec(DescribeConfigsRequest, DescribeConfigsResponse, 1, 4),
    ApiKey.IncrementalAlterConfigs: ApiSpec(
        IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 0, 1
    ),
}
