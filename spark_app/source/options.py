"""The Kafka source's options, named, defaulted and validated as Spark's own Kafka connector does.

A query written for our source must run on `format("kafka")` by changing only the format name,
and the reverse. So the option names, their defaults and the order and wording of the refusals
are the connector's (`KafkaSourceProvider.validateStreamOptions` / `validateGeneralOptions`):
options are case-insensitive, `kafka.bootstrap.servers` and exactly one of `subscribe`,
`subscribePattern`, `assign` are required, `startingOffsets` defaults to `latest`, and booleans
accept only `true`/`false`. Unknown options are ignored, as there.

Our own options (`checkpointLocation`, `logFile`, `offsetsGroup`) have names the connector does
not use, so it ignores them. `checkpointLocation` is there because Spark never tells a Python
source where its checkpoint is, and the source needs it to keep `sources/0/0` as the connector
does (see initial_offsets.py).

Usage:
    options = SourceOptions.parse({"kafka.bootstrap.servers": "127.0.0.1:9092",
                                   "subscribe": "Experience", "startingOffsets": "earliest"})
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_app.errors import SourceOptionError
from spark_app.offsets import TopicPartition

__all__ = ["SourceOptions", "Subscription", "parse_time_ms", "kafka_client_settings"]

_STRATEGIES = ("subscribe", "subscribepattern", "assign")
# Kafka consumer settings the connector forces itself and therefore refuses (KafkaSourceProvider).
_UNSUPPORTED = {
    "kafka.auto.offset.reset": (
        "Kafka option 'auto.offset.reset' is not supported.\nInstead set the source option "
        "'startingoffsets' to 'earliest' or 'latest'\nto specify where to start. Structured "
        "Streaming manages which offsets are consumed\ninternally, rather than relying on the "
        "kafkaConsumer to do it. This will ensure that no data is\nmissed when new "
        "topics/partitions are dynamically subscribed. Note that 'startingoffsets' only\napplies "
        "when a new Streaming query is started, and that resuming will always pick up from where "
        "the\nquery left off. See the docs for more details."
    ),
    "kafka.key.deserializer": (
        "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte "
        "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize "
        "the keys."
    ),
    "kafka.value.deserializer": (
        "Kafka option 'value.deserializer' is not supported as values are deserialized as byte "
        "arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize "
        "the values."
    ),
    "kafka.enable.auto.commit": "Kafka option 'enable.auto.commit' is not supported",
    "kafka.interceptor.classes": "Kafka option 'interceptor.classes' is not supported",
}
_TIME_UNITS_MS = {
    "us": 0.001,
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "min": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
}


@dataclass(frozen=True)
class Subscription:
    """Which partitions the query reads: one of the connector's three strategies."""

    kind: str  # "subscribe", "subscribePattern" or "assign"
    topics: tuple[str, ...] = ()
    pattern: str | None = None
    assigned: tuple[TopicPartition, ...] = ()

    def describe(self) -> str:
        """As the connector's description shows it: `Subscribe[Experience]`."""
        if self.kind == "subscribe":
            return f"Subscribe[{', '.join(self.topics)}]"
        if self.kind == "subscribePattern":
            return f"SubscribePattern[{self.pattern}]"
        return f"Assign[{', '.join(str(tp) for tp in self.assigned)}]"

    def matches(self, topic: str) -> bool:
        if self.kind == "subscribe":
            return topic in self.topics
        if self.kind == "subscribePattern":
            # Java's Pattern.matcher(topic).matches(): the whole name must match.
            return re.fullmatch(self.pattern or "", topic) is not None
        return any(tp.topic == topic for tp in self.assigned)


@dataclass(frozen=True)
class SourceOptions:
    """The source's options, parsed once from Spark's case-insensitive string map."""

    bootstrap_servers: str
    subscription: Subscription
    starting_offsets: str = "latest"
    starting_timestamp: int | None = None
    starting_offsets_by_timestamp: str | None = None
    starting_by_timestamp_strategy: str = "error"
    fail_on_data_loss: bool = True
    max_offsets_per_trigger: int | None = None
    min_offsets_per_trigger: int | None = None
    max_trigger_delay_ms: int = 15 * 60_000
    fetch_offset_num_retries: int = 3
    fetch_offset_retry_interval_ms: int = 1000
    poll_timeout_ms: int = 120_000
    include_headers: bool = False
    min_partitions: int | None = None
    max_records_per_partition: int | None = None
    group_id_prefix: str = "spark-kafka-source"
    group_id: str | None = None
    kafka_params: Mapping[str, str] = field(default_factory=dict)
    # Ours, ignored by the connector:
    checkpoint_location: str | None = None
    log_file: str | None = None
    offsets_group: str | None = None

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> SourceOptions:
        """Validate as the connector does, in its order; SourceOptionError with its words."""
        params = {str(k).lower(): str(v) for k, v in options.items()}
        _validate(params)
        min_rows, max_rows = (
            _long_or_none(params, "minoffsetspertrigger"),
            _long_or_none(params, "maxoffsetspertrigger"),
        )
        return cls(
            bootstrap_servers=params["kafka.bootstrap.servers"],
            subscription=_subscription(params),
            starting_offsets=params.get("startingoffsets", "latest").strip(),
            starting_timestamp=_long_or_none(
                params,
                "startingtimestamp",
                "java.lang.IllegalArgumentException: Expected a "
                f"single long value, got {params.get('startingtimestamp')}",
            ),
            starting_offsets_by_timestamp=params.get("startingoffsetsbytimestamp"),
            starting_by_timestamp_strategy=_strategy(params),
            fail_on_data_loss=_boolean(params.get("failondataloss", "true")),
            max_offsets_per_trigger=max_rows,
            min_offsets_per_trigger=min_rows,
            max_trigger_delay_ms=parse_time_ms(params.get("maxtriggerdelay", "15m")),
            fetch_offset_num_retries=_int(params.get("fetchoffset.numretries", "3")),
            fetch_offset_retry_interval_ms=_int(params.get("fetchoffset.retryintervalms", "1000")),
            poll_timeout_ms=_int(params.get("kafkaconsumer.polltimeoutms", "120000")),
            include_headers=_boolean(params.get("includeheaders", "false")),
            min_partitions=_long_or_none(params, "minpartitions"),
            max_records_per_partition=_long_or_none(params, "maxrecordsperpartition"),
            group_id_prefix=params.get("groupidprefix", "spark-kafka-source"),
            group_id=params.get("kafka.group.id"),
            kafka_params={
                k[len("kafka.") :]: v for k, v in params.items() if k.startswith("kafka.")
            },
            checkpoint_location=params.get("checkpointlocation") or None,
            log_file=params.get("logfile") or None,
            offsets_group=params.get("offsetsgroup") or None,
        )


def _fail(text: str) -> SourceOptionError:
    return SourceOptionError(f"java.lang.IllegalArgumentException: {text}")


def _validate(params: Mapping[str, str]) -> None:
    """KafkaSourceProvider.validateStreamOptions, check for check, in the same order."""
    if "endingoffsets" in params:
        raise _fail("ending offset not valid in streaming queries")
    if "endingoffsetsbytimestamp" in params:
        raise _fail("ending timestamp not valid in streaming queries")
    given = [s for s in _STRATEGIES if s in params]
    names = ", ".join(_STRATEGIES)
    if not given:
        raise _fail(
            f"One of the following options must be specified for Kafka source: {names}. "
            f"See the docs for more details."
        )
    if len(given) > 1:
        raise _fail(
            f"Only one of the following options can be specified for Kafka source: "
            f"{names}. See the docs for more details."
        )
    _validate_strategy(given[0], params[given[0]])
    for name in ("minpartitions", "maxrecordsperpartition"):
        if name in params and _int(params[name]) <= 0:
            label = "minPartitions" if name == "minpartitions" else name
            raise _fail(f"{label} must be positive")
    for key, text in _UNSUPPORTED.items():
        if key in params:
            raise _fail(text)
    if "kafka.bootstrap.servers" not in params:
        raise _fail(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer"
        )
    if "minoffsetspertrigger" in params and "maxoffsetspertrigger" in params:
        low, high = _long(params["minoffsetspertrigger"]), _long(params["maxoffsetspertrigger"])
        if low > high:
            raise _fail(
                f"The value of minOffsetPerTrigger({low}) is higher than the "
                f"maxOffsetsPerTrigger({high})."
            )


def _validate_strategy(kind: str, value: str) -> None:
    if kind == "assign" and not value.strip().startswith("{"):
        raise _fail(
            f"No topicpartitions to assign as specified value for option 'assign' is '{value}'"
        )
    if kind == "subscribe" and not [t for t in value.split(",") if t.strip()]:
        raise _fail(
            f"No topics to subscribe to as specified value for option 'subscribe' is '{value}'"
        )
    if kind == "subscribepattern" and not value.strip():
        raise _fail(
            f"Pattern to subscribe is empty as specified value for option "
            f"'subscribePattern' is '{value}'"
        )


def _subscription(params: Mapping[str, str]) -> Subscription:
    if "subscribe" in params:
        topics = tuple(t.strip() for t in params["subscribe"].split(",") if t.strip())
        return Subscription("subscribe", topics=topics)
    if "subscribepattern" in params:
        pattern = params["subscribepattern"].strip()
        try:
            re.compile(pattern)
        except re.error as err:
            raise _fail(f"subscribePattern {pattern!r} is not a valid pattern: {err}") from err
        return Subscription("subscribePattern", pattern=pattern)
    return Subscription("assign", assigned=_parse_assign(params["assign"]))


def _parse_assign(text: str) -> tuple[TopicPartition, ...]:
    """JsonUtils.partitions: `{"topicA":[0,1],"topicB":[0,1]}`."""
    try:
        raw = json.loads(text)
        parts = [TopicPartition(str(t), int(p)) for t, ps in raw.items() for p in ps]
    except (ValueError, TypeError, AttributeError) as err:
        raise _fail(f'Expected e.g. {{"topicA":[0,1],"topicB":[0,1]}}, got {text}') from err
    return tuple(sorted(parts))


def _strategy(params: Mapping[str, str]) -> str:
    value = params.get("startingoffsetsbytimestampstrategy", "error").strip().lower()
    if value not in ("error", "latest"):
        raise _fail(
            f"startingOffsetsByTimestampStrategy must be 'error' or 'latest', got "
            f"'{value}' (the connector fails with java.util.NoSuchElementException)"
        )
    return value


def _boolean(value: str) -> bool:
    """Scala's String.toBoolean: `true` or `false` in any case, nothing else."""
    if value.lower() == "true":
        return True
    if value.lower() == "false":
        return False
    raise _fail(f'For input string: "{value}"')


def _long(value: str, refusal: str | None = None) -> int:
    """Java's Long.parseLong: an optional sign and digits, nothing else."""
    if re.fullmatch(r"[+-]?\d+", value) is None:
        raise SourceOptionError(
            refusal or f'java.lang.NumberFormatException: For input string: "{value}"'
        )
    return int(value)


_int = _long


def _long_or_none(params: Mapping[str, str], name: str, refusal: str | None = None) -> int | None:
    return _long(params[name], refusal) if name in params else None


def parse_time_ms(text: str) -> int:
    """Spark's Utils.timeStringAsMs: `15m`, `500ms`, `2h`; a bare number is milliseconds."""
    match = re.fullmatch(r"(-?\d+)([a-z]+)?", text.strip().lower())
    if match is None or (match.group(2) and match.group(2) not in _TIME_UNITS_MS):
        raise SourceOptionError(
            "java.lang.NumberFormatException: Time must be specified as seconds (s), "
            "milliseconds (ms), microseconds (us), minutes (m or min), hour (h), or day (d). "
            f"E.g. 50s, 100ms, or 250us. Failed to parse time string: {text}"
        )
    return int(int(match.group(1)) * _TIME_UNITS_MS[match.group(2) or "ms"])


def kafka_client_settings(kafka_params: Mapping[str, str]) -> dict[str, Any]:
    """`kafka.*` options for our kafka-python client: each Kafka setting kafka-python knows
    (`request.timeout.ms` -> `request_timeout_ms`), typed as its default; others are ignored,
    as a Java client would warn about and ignore an unknown setting."""
    from kafka import KafkaConsumer  # imported here: options parse without a Kafka client

    forced = {
        "bootstrap_servers",
        "group_id",
        "auto_offset_reset",
        "enable_auto_commit",
        "key_deserializer",
        "value_deserializer",
    }
    out: dict[str, Any] = {}
    for key, value in kafka_params.items():
        name = key.replace(".", "_")
        if name in forced or name not in KafkaConsumer.DEFAULT_CONFIG:
            continue
        default = KafkaConsumer.DEFAULT_CONFIG[name]
        out[name] = (
            value.lower() == "true"
            if isinstance(default, bool)
            else int(value)
            if isinstance(default, int)
            else value
        )
    return out
