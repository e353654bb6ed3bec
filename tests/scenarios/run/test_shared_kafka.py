"""One Kafka for a run's scenarios: stand-in scenarios that start Kafka and its producer (no
Spark) on the offline stack, each recording which Kafka and which topic it was given."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import OFFLINE
from scenarios.engine.stage import Stage
from scenarios.report.narration import Narrator
from scenarios.run.runner import run_scenarios
from scenarios.run.shared_kafka import worth_sharing

pytestmark = pytest.mark.e2e


def _stand_in(
    name: str, seen: dict[str, tuple[str, str, int]], behind_proxy: bool = False, brokers: int = 1
) -> Scenario:
    def run(stage: Stage) -> None:
        stage.kafka.start(behind_proxy=behind_proxy)
        seen[name] = (
            stage.kafka.bootstrap_servers,
            stage.kafka.topic,
            stage.kafka.window().earliest,
        )
        stage.expect(check("the producer sent to its topic", True, "a message", "a message"))

    return Scenario(
        name=name, title=name, summary="", origin="test", run=run, kafka_brokers=brokers
    )


def _run(tmp_path: Path, *, share: bool) -> tuple[dict[str, tuple[str, str, int]], str]:
    seen: dict[str, tuple[str, str, int]] = {}
    chosen = [
        _stand_in("first", seen),
        _stand_in("second", seen),
        _stand_in("cut-off", seen, behind_proxy=True),
    ]
    settings = OFFLINE.applied_to(
        RunSettings(
            timings=Timings.fast(), fast=True, share_kafka=share, report_dir=tmp_path / "report"
        )
    )
    out = io.StringIO()
    results = run_scenarios(chosen, settings, Narrator(stream=out))
    assert [r.verdict for r in results] == ["passed"] * 3, [r.error for r in results]
    return seen, out.getvalue()


def _listening(bootstrap: str) -> bool:
    host, port = bootstrap.rsplit(":", 1)
    with socket.socket() as sock:
        return sock.connect_ex((host, int(port))) == 0


def test_a_run_starts_one_kafka_and_each_scenario_gets_a_topic_of_its_own(tmp_path: Path) -> None:
    seen, said = _run(tmp_path, share=True)
    shared = seen["first"][0]
    assert seen["second"][0] == shared and f"Kafka at {shared}" in said
    assert seen["first"][1] != seen["second"][1]
    assert all(
        topic.startswith(f"Experience-{name}-")
        for name, (_, topic, _) in seen.items()
        if name != "cut-off"
    )
    assert seen["second"][2] == 0  # a fresh topic: nothing of the first scenario's in it
    # Cut off behind a proxy, a scenario keeps a broker of its own.
    assert seen["cut-off"][0] != shared and seen["cut-off"][1] == "Experience"
    assert (tmp_path / "report" / "kafka" / "processes" / "broker.out").exists()
    assert not _listening(shared), "the run's Kafka outlived the run"


def test_kafka_per_scenario_starts_one_for_each(tmp_path: Path) -> None:
    seen, _ = _run(tmp_path, share=False)
    assert len({bootstrap for bootstrap, _, _ in seen.values()}) == 3
    assert {topic for _, topic, _ in seen.values()} == {"Experience"}
    assert not (tmp_path / "report" / "kafka").exists()


def test_sharing_needs_two_scenarios_on_one_broker_and_no_kafka_given() -> None:
    def one(name: str, brokers: int = 1) -> Scenario:
        return Scenario(
            name=name, title=name, summary="", origin="test", run=print, kafka_brokers=brokers
        )

    settings = RunSettings()
    assert worth_sharing([one("a"), one("b")], settings)
    assert not worth_sharing([one("a"), one("b", brokers=3)], settings)
    assert not worth_sharing([one("a"), one("b")], RunSettings(bootstrap_servers="127.0.0.1:9092"))
    assert not worth_sharing([one("a"), one("b")], RunSettings(share_kafka=False))
