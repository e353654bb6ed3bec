"""The museum: Spark's known checkpoint bugs, each reproduced and held against its line's table.

One Kafka start, then each exhibit of scenarios/catalog/museum/ in turn on its own new
checkpoint: run the app, change the checkpoint folder as the bug needs, restart, and compare the
restart's outcome (an error class, or "went on") with what spark_app/lines/known_bug_table.py says
the running Spark line does. A different outcome is a failed check naming the ticket and the
version: a regression, or a fix nobody recorded. Exhibits another scenario shows already are
named with where to see them.

Usage:
    python -m scenarios run known-bugs --fast
    python -m scenarios run known-bugs --exhibits SPARK-55058,SPARK-53103 --spark 4.1.1
    python -m scenarios matrix --spark 4.0.0,4.1.1,4.2.0 known-bugs --fast
"""

from __future__ import annotations

import argparse

from scenarios.catalog import steps
from scenarios.catalog.museum import Exhibit, all_exhibits
from scenarios.engine.scenario import Scenario, ScenarioOption
from scenarios.engine.stage import Stage
from scenarios.errors import ScenarioError

__all__ = ["SCENARIO", "run", "chosen_exhibits"]


def run(stage: Stage, exhibits: str | None = None) -> None:
    chosen = chosen_exhibits(exhibits)
    for exhibit in chosen:
        if exhibit.run is None:
            stage.say(
                f"{exhibit.name} ({exhibit.bug.title}): shown by the scenario "
                f"{exhibit.bug.shown_by}; run it there"
                + (
                    f" (the museum's exhibit: {exhibit.bug.alias_of})"
                    if exhibit.bug.alias_of
                    else ""
                )
            )
    runnable = [e for e in chosen if e.run is not None]
    if not runnable:
        return
    with stage.step(
        steps.start_kafka(
            title="Start Kafka and the producer, once for every exhibit",
            happens="a broker and the producer; the topic keeps everything; each exhibit then "
            "runs the app on a new checkpoint of its own",
            why="the exhibits change the checkpoint, not this topic (one that adds partitions "
            "does it to a topic of its own): one Kafka serves them all",
            question="Each exhibit restarts the app after a change a known bug needs, with a "
            "topic that keeps everything: what decides how each restart ends?",
            answer="The change (to the checkpoint, or to what the app reads) and the Spark line "
            "the run uses: every offset a restart asks for still exists, so retention plays no "
            "part; the museum's table says what each line does.",
            production="before an upgrade, run the museum on the target Spark line: a bug it "
            "still has, or a fix it changes, shows as a failed check naming the ticket",
            giveaway=("retention plays no part", "the spark line the run uses"),
            checks=(),
        )
    ):
        skipped = {e.name: why for e in runnable if (why := _skipped_on_stack(stage, e))}
        # The proxy only where an exhibit that runs cuts the network: the others read Kafka
        # directly.
        stage.kafka.start(
            behind_proxy=any(e.behind_proxy for e in runnable if e.name not in skipped)
        )
    for exhibit in runnable:
        if exhibit.name in skipped:
            stage.say(f"SKIPPED {exhibit.name}: {skipped[exhibit.name]}")
            stage.fact("skipped_exhibits", stage.facts.get("skipped_exhibits", []) + [exhibit.name])
            continue
        assert exhibit.run is not None
        exhibit.run(stage)


def _skipped_on_stack(stage: Stage, exhibit: Exhibit) -> str:
    if exhibit.bug.needs_connector and stage.settings.source != "spark-kafka":
        return "it is a bug of Spark's own Kafka connector; this stack reads with our source"
    if exhibit.behind_proxy and stage.settings.bootstrap_servers:
        return (
            "it cuts the network to Kafka with a proxy of its own, which needs the Kafka "
            "this run starts (run it without --bootstrap-servers)"
        )
    return ""


def chosen_exhibits(names: str | None) -> list[Exhibit]:
    """The exhibits `--exhibits A,B` names (when None, all but those run on request), in the
    museum's order."""
    every = all_exhibits()
    if names is None:
        return [e for e in every if not e.on_request]
    wanted = {n.strip().upper() for n in names.split(",") if n.strip()}
    unknown = wanted - {e.name for e in every}
    if unknown or not wanted:
        raise ScenarioError(
            f"--exhibits {names}: no exhibit {', '.join(sorted(unknown)) or ''}; "
            f"known: {', '.join(e.name for e in every)}"
        )
    return [e for e in every if e.name in wanted]


def _exhibits_option(names: str) -> str:
    """`--exhibits` checked as the command line is read: an unknown ticket starts nothing."""
    try:
        chosen = chosen_exhibits(names)
    except ScenarioError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if all(e.run is None for e in chosen):  # nothing to run would be a run with no checks
        raise argparse.ArgumentTypeError(
            "; ".join(
                f"{e.name} is shown by the scenario {e.bug.shown_by}: run that" for e in chosen
            )
        )
    return names


SCENARIO = Scenario(
    name="known-bugs",
    title="the museum: Spark's known checkpoint bugs, each held against its line's outcome",
    summary="Each exhibit changes a checkpoint as a known Spark bug needs (its metadata file, "
    "state/, offsets/ and commits/ deleted, a state file swapped under its checksum, a "
    "byte flipped in a format-2 snapshot zip, one cut short, a format-2 commit taken back), "
    "or how it restarts (more shuffle partitions), or what it reads (partitions added under "
    "an AvailableNow backfill stopped mid-run, Kafka cut at a batch read's first offset "
    "look-up), and restarts or reads; or it runs what the bug needs (transformWithState "
    "timers due at or before their batch's time) and watches; the outcome is held "
    "against the table of what "
    "each Spark line does "
    "(spark_app/lines/known_bug_table.py).",
    origin="Spark's JIRA, run on every line",
    about="Spark's known checkpoint bugs, each reproduced on the Spark line this run uses and "
    "held against what that line is recorded to do",
    run=run,
    options=(
        ScenarioOption(
            "--exhibits",
            _exhibits_option,
            "the museum's exhibits to run, e.g. SPARK-55058,SPARK-54307 (default: all)",
            metavar="T1,T2",
        ),
    ),
    cases=tuple((e.name, e.listed) for e in all_exhibits()),
    takes="about 5 min: the exhibits that run, each on a checkpoint of its own, 23 Spark starts "
    "in all; `--exhibits` picks one or a few",
)
