"""The stack's jars are fetched before the first scenario, their progress on screen, a failure
one line; the stand-ins fetch nothing."""

from __future__ import annotations

import sys

import pytest

from scenarios.engine.settings import RunSettings
from scenarios.engine.stacks import OFFLINE, REAL, Stack
from scenarios.errors import ScenarioError
from scenarios.run import jar_prefetch
from scenarios.run.jar_prefetch import prefetch_commands, prefetch_jars


def test_each_stack_fetches_what_it_runs() -> None:
    assert prefetch_commands(OFFLINE.applied_to(RunSettings())) == []
    real = [c[-1] for c in prefetch_commands(REAL.applied_to(RunSettings()))]
    assert real == ["kafka_app.apache.jars", "spark_app.runtime.connector_jars"]
    mixed = RunSettings(spark_python="/envs/4.0.0/bin/python")
    mixed = Stack("embedded", "connector").applied_to(mixed)
    assert prefetch_commands(mixed) == [
        ["/envs/4.0.0/bin/python", "-m", "spark_app.runtime.connector_jars"]
    ]
    other = prefetch_commands(RunSettings(kafka_version="4.4.0"))[0]
    assert other[-3:] == ["kafka_app.apache.jars", "--kafka-version", "4.4.0"]
    external = RunSettings(bootstrap_servers="kafka:9092")  # someone else's Kafka: no broker jars
    assert [c[-1] for c in prefetch_commands(external)] == ["spark_app.runtime.connector_jars"]


def test_a_scenario_that_moves_its_brokers_to_another_kafka_has_those_jars_fetched_first() -> None:
    """kafka-upgrade rolls its brokers to 4.4.0: fetched before the first scenario, not while
    the query runs; a run on 4.4.0 already fetches it, and the stand-ins fetch no Kafka."""
    from scenarios.catalog.kafka_upgrade import SCENARIO, TARGET

    kafka = [
        c[3:]
        for c in prefetch_commands(REAL.applied_to(RunSettings()), [SCENARIO])
        if c[2] == "kafka_app.apache.jars"
    ]
    assert kafka == [[], ["--kafka-version", TARGET]]
    on_target = REAL.applied_to(RunSettings(kafka_version=TARGET))
    assert [
        c[3:] for c in prefetch_commands(on_target, [SCENARIO]) if c[2] == "kafka_app.apache.jars"
    ] == [["--kafka-version", TARGET]]
    assert prefetch_commands(OFFLINE.applied_to(RunSettings()), [SCENARIO]) == []


def _script(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_progress_is_passed_on_and_the_cached_line_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        jar_prefetch,
        "prefetch_commands",
        lambda settings, scenarios=(): [
            _script(
                "print('fetching kafka-4.1.2: 2 jar(s), 0.6 MB, 5 s'); "
                "print('Kafka 4.1.2: 46 jars in /root/.cache/checkpoint-experience/jars/kafka-4.1.2')"
            )
        ],
    )
    said: list[str] = []
    prefetch_jars(RunSettings(), said.append)
    assert said == ["fetching kafka-4.1.2: 2 jar(s), 0.6 MB, 5 s"]


def test_a_failed_fetch_stops_the_run_with_its_own_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        jar_prefetch,
        "prefetch_commands",
        lambda settings, scenarios=(): [
            _script(
                "import sys; print('error: could not fetch org.apache.kafka:kafka_2.13:4.1.2 from Maven "
                "Central; --offline runs on the embedded broker', file=sys.stderr); sys.exit(1)"
            )
        ],
    )
    with pytest.raises(ScenarioError) as caught:
        prefetch_jars(RunSettings(), lambda _: None)
    assert str(caught.value).startswith("could not fetch org.apache.kafka:kafka_2.13:4.1.2")
    assert "--offline" in str(caught.value)
