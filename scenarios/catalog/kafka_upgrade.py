"""Kafka upgrade: three brokers rolled from 4.1.2 to 4.4.0, back, forward again, while the query runs.

The cluster starts on the run's Kafka (4.1.2 by default, `--kafka-version`), every node
formatted by that version, so the cluster's `metadata.version` is that version's level. Each
broker in turn is stopped cleanly and started again on 4.4.0's jars, on its own data folder,
after the partition's three replicas are in sync again. ApiVersions shows what each broker
offers; the connector's kafka-clients (read off its jar) speaks, per API, the highest version
both know, which an upgrade of the brokers does not change. The binaries go back to 4.1.2
the same way (metadata.version was never raised), and forward again (with `--fast`, one
broker goes back and forward: a mixed cluster). Then metadata.version is
finalized at 4.4.0's level: from there, Kafka refuses a downgrade of the feature, and a node
started on 4.1.2's jars dies reading the metadata log. The app and the producer never restart,
and every message is counted exactly once.

Needs three brokers: Apache Kafka (`--stack apache/connector` or `apache/python`).

Usage: `python -m scenarios run kafka-upgrade --fast --stack apache/connector`
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from kafka_app.apache.errors import ApacheKafkaError
from kafka_app.apache.jars import DEFAULT_VERSION
from kafka_app.apache.versions import (
    API_NAMES,
    BrokerApis,
    FeatureRefused,
    client_maxima,
    jar_version,
    metadata_version_names,
    spoken,
    unknown_level_refusal,
)
from scenarios.catalog import steps
from scenarios.checker.expectations import check, equals
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step

__all__ = ["SCENARIO", "run"]

# The newest org.apache.kafka:kafka_2.13 Maven Central serves (2026-11-26).
TARGET = "4.4.0"
MV = "metadata.version"
RULE = "one broker at a time, the next only once every partition is fully in sync again"


@dataclass(frozen=True)
class Client:
    """The Kafka client library of the Spark app's source and the highest version of each API it knows."""

    name: str
    maxima: dict[int, int]


def run(stage: Stage) -> None:
    source = stage.settings.kafka_version or DEFAULT_VERSION
    client, first = _start(stage, source)
    _roll(stage, client, source, first)
    _roll_back(stage, client, source)
    _finalize(stage, source)
    _no_way_back(stage, source)
    _everything_once(stage)


# -- what each side speaks --------------------------------------------------------------------------
def _client(stage: Stage) -> Client | None:
    """The connector's kafka-clients, its highest versions read off its jar (javap); None when
    the app does not use the connector, or when no javap can read the jar (said in a line)."""
    if stage.settings.source != "spark-kafka":
        stage.say(
            "the app's python source speaks Kafka through kafka-python; the versions below "
            "are the brokers' side only"
        )
        return None
    from spark_app.runtime.connector_jars import connector_jars
    from spark_app.runtime.spark_version import installed_spark_version

    spark = stage.settings.spark_version or installed_spark_version()
    jar = next(
        (j for j in connector_jars(spark, progress=False) if j.name.startswith("kafka-clients-")),
        None,
    )
    javap = shutil.which("javap")
    if jar is None or javap is None:
        stage.say(
            "cannot read the connector's kafka-clients versions "
            + ("(no javap: a JDK has one)" if jar else "(no kafka-clients jar)")
        )
        return None
    return Client(f"kafka-clients {jar_version(jar)}", client_maxima(jar, javap=javap))


def _versions(stage: Stage, client: Client | None, when: str) -> dict[int, dict[int, int | None]]:
    """Say what each broker offers and what the client speaks to it; returns node -> API -> spoken."""
    spoken_by_node: dict[int, dict[int, int | None]] = {}
    for node in stage.brokers.ids:
        apis = stage.brokers.api_versions(node)
        offered = ", ".join(
            f"{API_NAMES[k]} {apis.ranges[k][0]}-{apis.ranges[k][1]}" for k in API_NAMES
        )
        line = (
            f"broker {node} ({stage.brokers.version(node)}): {offered}; {MV} supported "
            f"{_supported(apis)}, finalized {apis.finalized.get(MV)}"
        )
        if client is not None:
            spoken_by_node[node] = {k: spoken(client.maxima[k], apis.ranges[k]) for k in API_NAMES}
            line += f"; {client.name} speaks " + ", ".join(
                f"{API_NAMES[k]} v{v}" for k, v in spoken_by_node[node].items()
            )
        stage.say(line)
        stage.fact(
            f"{when}_broker_{node}",
            {
                "version": stage.brokers.version(node),
                "apis": {API_NAMES[k]: list(apis.ranges[k]) for k in API_NAMES},
                "metadata_version": apis.finalized.get(MV),
                "supported_metadata_version": list(apis.supported.get(MV, ())),
            },
        )
    if client is not None:
        stage.fact(
            "client",
            {"name": client.name, "maxima": {API_NAMES[k]: v for k, v in client.maxima.items()}},
        )
    return spoken_by_node


def _supported(apis: BrokerApis) -> str:
    low, high = apis.supported.get(MV, (0, 0))
    return f"{low}-{high}"


def _finalized(stage: Stage) -> int | None:
    return stage.brokers.api_versions(stage.brokers.ids[0]).finalized.get(MV)


def _mv_name(stage: Stage, level: int | None) -> str:
    names: dict[int, str] = {}
    for node in stage.brokers.ids:
        path = stage.brokers.log_file(node)
        if path.exists():
            names.update(metadata_version_names(path.read_text(encoding="utf-8", errors="replace")))
    return f"{level} ({names[level]})" if level in names else str(level)


# -- the steps -------------------------------------------------------------------------------------------
def _start(stage: Stage, source: str) -> tuple[Client | None, dict[int, dict[int, int | None]]]:
    """The cluster, the app, and what each broker offers and the client speaks to it."""
    with stage.step(
        Step(
            f"Three Kafka {source} brokers, the counter, and what each side speaks",
            happens=f"three Apache Kafka {source} nodes form a KRaft quorum, each formatted by "
            f"{source}; the producer creates the topic with three replicas; the app starts",
            watch=f"the app's first batch lines; then the narration's line per broker: the "
            f"version range of each API it answers to ApiVersions, and {MV}: the levels its "
            f"software supports and the one the cluster has finalized",
            why=f"every client opens a connection with ApiVersions and then speaks, per API, the "
            f"highest version both sides know; {MV} is a cluster-wide feature level, written "
            f"into the metadata log when the storage is formatted",
            production="note the finalized metadata.version before an upgrade (kafka-features "
            "describe): it is what a rollback must come back to",
            question=f"Which {MV} does a fresh {source} cluster finalize: its newest supported "
            "level, or an older one?",
            answer="Its newest production level, the top of the range its software supports "
            "(checked).",
            giveaway=("newest production level", "top of the range"),
            checks=(f"{MV} finalized by the format",),
        )
    ):
        stage.kafka.start(brokers=3)
        client = _client(stage)
        level = stage.fact("metadata_version_start", _finalized(stage))
        top = stage.brokers.api_versions(stage.brokers.ids[0]).supported.get(MV, (0, 0))[1]
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.expect(
            equals(
                f"{MV} finalized by the format", level, top, lambda n: f"{MV} {_mv_name(stage, n)}"
            )
        )
        first = _versions(stage, client, "start")
    return client, first


def _roll_to(stage: Stage, version: str, order: list[int]) -> list[float]:
    """Restart each node on `version`, one at a time, each after the ISR is whole again."""
    away = []
    for node in order:
        stage.brokers.wait_for_isr(3)
        away.append(round(stage.brokers.restart(node, version), 1))
        stage.brokers.wait_for_isr(3)
        logged = stage.brokers.logged_version(node)
        stage.expect(
            equals(
                f"broker {node} runs {version}",
                logged,
                version,
                lambda v, node=node: f"`Kafka version: {v}` in kafka-server-{node}.log",
            )
        )
        stage.output.wait_for_more(2)
    return away


def _leader_last(stage: Stage) -> list[int]:
    """The nodes, the partition's leader last: its leadership moves once, not at every step."""
    leader = stage.brokers.leader()
    return [n for n in stage.brokers.ids if n != leader] + [leader]


def _riding(stage: Stage) -> None:
    stage.expect(
        check(
            "the app rode it out",
            stage.app.running,
            "the same Spark app, no restart",
            "running" if stage.app.running else "exited",
        )
    )
    running = stage.kafka.producer_running
    stage.expect(
        check(
            "the producer rode it out",
            running,
            "the same producer, still sending",
            "running" if running else "exited",
        )
    )


def _roll(
    stage: Stage, client: Client | None, source: str, first: dict[int, dict[int, int | None]]
) -> None:
    with stage.step(
        Step(
            f"Roll the brokers to {TARGET}, one at a time, the query running",
            happens=f"each broker in turn (the partition's leader last) shuts down cleanly and "
            f"starts again on {TARGET}'s jars, on its own data folder; the next waits until "
            f"the partition's three replicas are in sync again",
            watch=f"the narration's line per broker, `Kafka broker N: {source} -> {TARGET}, back "
            f"in … s`, then what each answers to ApiVersions; the app's batch lines go on "
            f"between them",
            why=f"a {TARGET} broker reads {source}'s log and metadata as they are: the format on "
            f"disk is what {MV} says, and nobody has raised it",
            production=f"the rule for a rolling upgrade: {RULE}",
            question=f"Once all three run {TARGET}, will the connector speak newer protocol "
            f"versions, and will {MV} have moved?",
            answer=f"Neither: the client keeps the versions it knows, the highest both sides "
            f"share, and {MV} stays at {source}'s level until someone finalizes it (checked).",
            giveaway=("neither", "unchanged", "stays at", "keeps the versions"),
            checks=(f"{MV} unchanged by new binaries",),
        )
    ):
        before = stage.facts["metadata_version_start"]
        stage.fact("upgrade_restart_sec", _roll_to(stage, TARGET, _leader_last(stage)))
        after = _versions(stage, client, "upgraded")
        _riding(stage)
        level = _finalized(stage)
        stage.expect(
            equals(
                f"{MV} unchanged by new binaries",
                level,
                before,
                lambda n: f"{MV} {_mv_name(stage, n)}",
            )
        )
        if client is not None:
            for node in stage.brokers.ids:
                stage.expect(
                    equals(
                        f"{client.name} speaks to broker {node} as on {source}",
                        after[node],
                        first[node],
                        _spoken_text,
                    )
                )


def _spoken_text(versions: dict[int, int | None]) -> str:
    return ", ".join(f"{API_NAMES[k]} v{v}" for k, v in versions.items())


def _roll_back(stage: Stage, client: Client | None, source: str) -> None:
    # --fast rolls one broker back and forward (a mixed cluster, four restarts fewer: about two
    # minutes on this machine); a full run rolls all three.
    which = "one broker" if stage.settings.fast else "every broker"
    order = _leader_last(stage)
    order = order[:1] if stage.settings.fast else order
    with stage.step(
        Step(
            f"Roll the binaries back to {source}, then forward to {TARGET} again",
            happens=f"the same roll, {which} restarted on {source}'s jars; then once more on "
            f"{TARGET}'s",
            watch=f"the narration's line per broker restarted, `Kafka broker N: {TARGET} -> "
            f"{source}, back in … s`, and back; the app's batch lines go on between them",
            why=f"{MV} is still {source}'s level, which {source} knows: the data on disk is in a "
            f"format the old binaries read",
            production="keep the old binaries and the roll-back runbook at hand until the new "
            "version has run long enough",
            question=f"Will {source} start again on data a {TARGET} broker has written?",
            answer=f"Yes: {which} starts on {source} (checked), the query runs on, and the "
            f"cluster is rolled forward again the same way.",
            giveaway=("yes:", "old binaries read"),
            checks=(f"broker {order[0]} runs {source}", "the app rode it out"),
        )
    ):
        stage.fact("rollback_restart_sec", _roll_to(stage, source, order))
        _versions(stage, client, "rolled_back")
        _riding(stage)
        stage.fact("upgrade_again_restart_sec", _roll_to(stage, TARGET, order))


def _finalize(stage: Stage, source: str) -> None:
    ids = stage.brokers.ids
    with stage.step(
        Step(
            f"Finalize {MV} at {TARGET}'s level",
            happens="`kafka-features upgrade --metadata` as an UpdateFeatures request: the "
            "controller checks that every broker supports the level, then writes it into "
            "the metadata log",
            watch=f"the narration: a wait for the brokers while they replay the new level, then "
            f"the line `{MV}: before -> after`; the app's batch lines go on meanwhile",
            why=f"new features of {TARGET} that change what is written (records, metadata) wait "
            f"for this level: the binaries alone never use them. The controller answers once "
            f"the level is in the metadata log; each broker reports it once it has replayed "
            f"the record, a moment later (the step waits for all three)",
            production="finalize as a change of its own, days after the roll, and note the "
            "level the cluster had before",
            question=f"After the finalize, which {MV} does each broker report?",
            answer=f"{TARGET}'s top level, the same on all three (checked).",
            giveaway=("the same on all three",),
            checks=(
                f"broker {ids[0]} reports {MV}",
                f"broker {ids[1]} reports {MV}",
                f"broker {ids[2]} reports {MV}",
            ),
        )
    ):
        top = stage.brokers.api_versions(ids[0]).supported[MV][1]
        stage.brokers.update_feature(MV, top)
        levels = {n: stage.brokers.api_versions(n).finalized.get(MV) for n in ids}
        stage.fact("metadata_version_finalized", top)
        for node, level in levels.items():
            stage.expect(
                equals(
                    f"broker {node} reports {MV}",
                    level,
                    top,
                    lambda n: f"{MV} {_mv_name(stage, n)}",
                )
            )
        stage.say(
            f"{MV}: {_mv_name(stage, stage.facts['metadata_version_start'])} -> "
            f"{_mv_name(stage, top)}"
        )


def _no_way_back(stage: Stage, source: str) -> None:
    start_level = stage.facts["metadata_version_start"]
    node = _leader_last(stage)[0]
    with stage.step(
        Step(
            f"Try to go back: {MV} down, then a broker on {source}",
            happens=f"`kafka-features downgrade --metadata` to {source}'s level; then one broker "
            f"(not the leader) restarted on {source}'s jars; then on {TARGET} again",
            watch=f"the narration's lines: Kafka's answer to the downgrade, then the broker's "
            f"start on {source} and on {TARGET} again; the app's batch lines go on meanwhile",
            why=f"a lower {MV} could drop metadata the higher one wrote, so the controller "
            f"refuses; and {source} cannot read a metadata log at a level it does not know: "
            f"its log says `No MetadataVersion with feature level` (its broker side) or `Tried "
            f"to apply FeatureLevelRecord` (its controller side), whichever replays the level "
            f"first",
            production="finalize only when no rollback of the binaries can be needed: it is "
            "the point of no return, and the way back is a restore, not a roll. Test the new "
            "version before it, on a cluster you can throw away",
            question=f"After the finalize, will Kafka lower {MV} again, and will a {source} "
            f"broker start?",
            answer=f"Neither: the downgrade is refused (checked) and the {source} broker dies "
            f"while loading the metadata log (checked); back on {TARGET} it rejoins (checked).",
            giveaway=("refused", "dies", "cannot start", "no return"),
            checks=(
                f"{MV} downgrade refused",
                f"broker {node} cannot start on {source}",
                "all three replicas in sync again",
            ),
        )
    ):
        try:
            stage.brokers.update_feature(MV, start_level, downgrade=True)
            refusal = "accepted"
        except FeatureRefused as error:
            refusal = str(error)
        stage.fact("downgrade_refusal", refusal)
        stage.expect(
            check(
                f"{MV} downgrade refused",
                "downgrade" in refusal and refusal != "accepted",
                f"refused: Unsupported {MV} downgrade",
                refusal,
            )
        )
        try:
            stage.brokers.restart(node, source)
            died = ""
        except ApacheKafkaError as error:
            died = str(error)
        log = stage.brokers.log_file(node).read_text(encoding="utf-8", errors="replace")
        reason = unknown_level_refusal(log, stage.facts["metadata_version_finalized"])
        stage.fact("old_broker_refusal", reason or died)
        stage.expect(
            check(
                f"broker {node} cannot start on {source}",
                bool(died) and reason is not None,
                f"it exits, its log refusing level {stage.facts['metadata_version_finalized']}",
                reason or died or "it started",
            )
        )
        stage.brokers.restart(node, TARGET)
        replicas = stage.brokers.wait_for_isr(3)
        stage.expect(
            check(
                "all three replicas in sync again",
                len(replicas.isr) == 3,
                "ISR of three",
                f"ISR {list(replicas.isr)}",
            )
        )
        _riding(stage)


def _everything_once(stage: Stage) -> None:
    with stage.step(
        steps.finish(
            question="After every broker restarted, on both versions, will any value be "
            "missing from the output log, or written twice?",
            why="clean shutdowns move leadership before a broker goes, acks=all keeps every "
            "acknowledged message on the in-sync replicas, and the checkpoint's offsets point "
            "at the same messages on every version",
            production="after an upgrade, check the consumer's output against the producers' "
            "count once, not by eye",
            giveaway=("none:", "every value 1..n is there"),
        )
    ):
        stage.finish_exactly_once()


SCENARIO = Scenario(
    name="kafka-upgrade",
    title=f"three Kafka brokers rolled from 4.1.2 to {TARGET} and back under a running query; "
    f"metadata.version is the point of no return",
    summary=f"Three Kafka brokers are restarted one at a time on {TARGET}'s jars, then back on "
    f"4.1.2's, then on {TARGET}'s again, while the producer and the query run: no "
    f"restart of either, every message counted once. ApiVersions shows what each broker "
    f"offers and what the connector's kafka-clients speaks (the same on both versions). "
    f"Once metadata.version is finalized at {TARGET}'s level, Kafka refuses to lower it "
    f"and a 4.1.2 broker dies loading the metadata log.",
    origin="production: upgrading Kafka under a running query",
    about="a rolling upgrade of three Kafka brokers under a running query, a rollback, and "
    "metadata.version",
    run=run,
    takes="about 2 min: three Kafka brokers restarted one at a time, seven times over two "
    "versions, under a running query",
    kafka_brokers=3,
    kafka_versions=(TARGET,),
)
