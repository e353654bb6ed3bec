"""The pure parts of state-ttl-and-timers and of what it reads (no Spark): the event rows and
lines, the verifier passing over them, the app's options and refusals, the checks' helpers."""

from __future__ import annotations

from datetime import datetime

import pytest

from scenarios.catalog.state_ttl_and_timers import TWS_TTL, refused_class, times_for
from scenarios.checker.state_events import (
    batch_reaching,
    event_precedes,
    events_at,
    first_batch_at_or_after,
    timers_due,
)
from scenarios.checker.verify import verify
from spark_app.checkpoint.reader import BatchOffsets
from spark_app.checkpoint.state_data_source import (
    StateReport,
    StoreLayout,
    TtlChange,
    operator_properties,
    variables_of,
)
from spark_app.checkpoint.state_schema import STATE_SCHEMAS
from spark_app.cli import main_parser, settings_from_args
from spark_app.failures.state_schema import find_schema_refusal
from spark_app.lines.output_line import (
    EventLine,
    OutputRow,
    format_event_line,
    format_lines,
    parse_line,
)
from spark_app.lines.state_events import (
    IDLE_TIMER,
    TTL_EXPIRED,
    Event,
    describe,
    details_in,
    event_frame,
    events_in,
)
from spark_app.offsets import TopicPartition
from spark_app.query.counter_tws import time_mode
from spark_app.runtime.state_store import ENCODING_CONF, state_store_conf, tws_only_refusal
from spark_app.settings import SparkAppSettings

NOW = datetime(2026, 11, 24, 18, 40, 2, 123000)


def lines_of(*rows: OutputRow | Event) -> list[str]:
    text = ""
    for row in rows:
        text += (
            format_event_line(row.kind, row.count, describe(row), NOW)
            if isinstance(row, Event)
            else format_lines([row], NOW)
        )
    return text.splitlines()


def msg(value: int) -> OutputRow:
    return OutputRow("Experience", str(value), str(value), value)


def timer(count: int) -> Event:
    return Event(IDLE_TIMER, count, {"idle_ms": 6000, "due_ms": 100, "batch_ms": 150})


def test_an_event_line_reads_back_with_its_kind_count_and_details() -> None:
    [line] = lines_of(timer(42))
    parsed = parse_line(line)
    assert isinstance(parsed, EventLine)
    assert (parsed.kind, parsed.count) == (IDLE_TIMER, 42)
    assert details_in(parsed.text) == {"idle_ms": 6000, "due_ms": 100, "batch_ms": 150}


def test_the_verifier_passes_over_event_lines_and_keeps_them() -> None:
    report = verify(
        lines_of(msg(1), msg(2), timer(2), Event(TTL_EXPIRED, 2, {"ttl_ms": 12000}), msg(3))
    )
    assert report.ok and report.final_count == 3 and report.ignored_lines == 0
    assert [(e.kind, e.count) for e in report.events] == [(IDLE_TIMER, 2), (TTL_EXPIRED, 2)]


def test_without_events_the_log_is_the_seeds_two_lines_per_message() -> None:
    assert all("Event" not in line for line in lines_of(msg(1), msg(2)))
    assert verify(lines_of(msg(1))).to_dict()["events"] == 0


def test_an_event_row_has_no_offset_and_is_found_among_messages() -> None:
    import pandas as pd

    frame = pd.concat(
        [
            event_frame(Event(TTL_EXPIRED, 7, {"ttl_ms": 12000, "batch_ms": 5})),
            pd.DataFrame(
                {
                    "topic": ["E"],
                    "partition": [0],
                    "offset": [7],
                    "key": ["8"],
                    "value": ["8"],
                    "count": [8],
                }
            ),
        ],
        ignore_index=True,
    )
    assert events_in(frame) == [Event(TTL_EXPIRED, 7, {"ttl_ms": 12000, "batch_ms": 5})]


def test_ttl_or_timer_switch_on_processing_time() -> None:
    assert time_mode(None, None) == "None"
    assert time_mode(12.0, None) == time_mode(None, 6.0) == "ProcessingTime"


def test_the_options_parse_round_trip_and_set_avro() -> None:
    settings = SparkAppSettings(
        **TWS_TTL, state_ttl_sec=12.0, idle_timer_sec=6.0, state_schema="v2-renamed"
    )
    back = settings_from_args(main_parser().parse_args(settings.to_argv()))
    assert back == settings
    assert state_store_conf(settings)[ENCODING_CONF] == "avro"
    assert ENCODING_CONF not in state_store_conf(SparkAppSettings())


@pytest.mark.parametrize(
    "option, flag",
    [
        ({"state_ttl_sec": 5.0}, "--state-ttl-sec"),
        ({"idle_timer_sec": 5.0}, "--idle-timer-sec"),
        ({"state_encoding": "avro"}, "--state-encoding avro"),
    ],
)
def test_apply_in_pandas_with_state_refuses_each_in_one_line(option: dict, flag: str) -> None:
    refusal = tws_only_refusal(SparkAppSettings(**option))
    assert refusal is not None and refusal.startswith(flag) and "\n" not in refusal
    assert tws_only_refusal(SparkAppSettings(**option, counter="transform-with-state")) is None


def test_the_schema_variants_rename_and_narrow_one_field_of_v2() -> None:
    v2 = STATE_SCHEMAS["v2"].split(", ")
    assert STATE_SCHEMAS["v2-renamed"].split(", ") == [v2[0], "updated_ms bigint"]
    assert STATE_SCHEMAS["v2-narrowed"].split(", ") == ["count int", v2[1]]


def test_an_avro_evolution_refusal_names_both_schemas_with_types() -> None:
    text = (
        "[STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION] Schema evolution is not possible new "
        "value_schema=StructType(StructField(count,IntegerType,true),StructField("
        "last_update_ms,LongType,true)) and old value_schema=StructType(StructField(count,"
        "LongType,true),StructField(last_update_ms,LongType,true))"
    )
    refusal = find_schema_refusal(text)
    assert refusal is not None
    assert refusal.stored_fields == ("count long", "last_update_ms long")
    assert refusal.new_fields == ("count integer", "last_update_ms long")
    assert refused_class(str(refusal.error("ck"))) == "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION"


def test_events_at_and_the_event_right_before_a_count() -> None:
    lines = lines_of(msg(1), msg(2), Event(TTL_EXPIRED, 2, {}), msg(3))
    assert event_precedes(lines, TTL_EXPIRED, 2, 3)
    assert not event_precedes(lines, TTL_EXPIRED, 2, 2)
    assert not event_precedes(lines_of(msg(1), msg(2), msg(3)), TTL_EXPIRED, 2, 3)
    events = verify(lines).events
    assert len(events_at(events, TTL_EXPIRED, 2)) == 1 and not events_at(events, IDLE_TIMER, 2)


def batch(n: int, end: int, ms: int) -> BatchOffsets:
    return BatchOffsets(n, ({TopicPartition("Experience", 0): end},), batch_timestamp_ms=ms)


def test_the_batch_that_counted_a_value_and_the_first_past_a_time() -> None:
    batches = [batch(0, 5, 1000), batch(1, 9, 2000), batch(2, 9, 3000), batch(3, 12, 4000)]
    assert batch_reaching(batches, 9).batch_id == 1
    assert batch_reaching(batches, 13) is None
    assert first_batch_at_or_after(batches, 2500).batch_id == 2
    assert first_batch_at_or_after(batches, 9999) is None


def test_the_fast_timer_comes_before_the_ttl() -> None:
    for fast in (True, False):
        times = times_for(fast)
        assert times.idle_timer_sec < times.ttl_sec
        assert times.options()["counter"] == "transform-with-state"


def test_inspect_reads_variables_and_says_ttl_and_timers() -> None:
    properties = operator_properties(
        '{"timeMode":"ProcessingTime","outputMode":"Update","stateVariables":['
        '{"stateName":"count","stateVariableType":"ValueState","ttlEnabled":false},'
        '{"stateName":"last_seen","stateVariableType":"ValueState","ttlEnabled":true}]}'
    )
    variables = variables_of(properties)
    assert [v["name"] for v in variables if v["ttl"]] == ["last_seen"]
    assert operator_properties("not json") == {} and operator_properties(None) == {}
    report = StateReport(
        StoreLayout(),
        count_batch=4,
        max_batch=9,
        time_mode="ProcessingTime",
        variables=variables,
        ttl_values={"last_seen": {"value": {"ms": 1}, "expires_ms": 12001}},
        ttl_changes=[
            TtlChange(4, "last_seen", "update", 12001),
            TtlChange(7, "last_seen", "delete", None),
        ],
        timers=[20000],
    )
    text = "\n".join(report.lines())
    assert "last_seen (ValueState, TTL)" in text
    assert "batch 7: delete last_seen (evicted: its TTL had passed)" in text
    assert "timers registered after batch 9: 20000" in text


def test_a_timer_is_found_by_its_due_time() -> None:
    events = verify(
        lines_of(msg(1), timer(1), msg(2), Event(IDLE_TIMER, 2, {"idle_ms": 6000, "due_ms": 200}))
    ).events
    assert [e.count for e in timers_due(events, 200)] == [2]
    assert timers_due(events, 999) == []
