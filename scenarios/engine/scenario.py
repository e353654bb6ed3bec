"""What a scenario module declares: its name, what it shows, and the function that runs it.

Every module of the catalog ends with `SCENARIO = Scenario(...)`; the registry
(scenarios/registry.py, above the catalog) finds them. This is the declaration alone, so the
catalog can make one without reading the list it belongs to.

Usage: `SCENARIO = Scenario(name="chaos", title="…", summary="…", origin="seed 001", run=run)`
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["LONG_RUN_SEC", "Scenario", "ScenarioOption", "said_minutes"]


@dataclass(frozen=True)
class ScenarioOption:
    """An option only one scenario takes on `run`'s command line, e.g. chaos's `--kills N`.

    Its value reaches the scenario's run function as the keyword argument `dest`, and only when
    given: the scenario's own default (which may depend on --fast) applies otherwise.
    """

    flag: str
    type: Callable[[str], Any]
    help: str
    metavar: str = "N"

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Scenario:
    """A scenario: its name on the command line, what it shows, and the function that runs it."""

    name: str
    title: str
    summary: str
    origin: str
    run: Callable[[Stage], None]
    options: tuple[ScenarioOption, ...] = ()
    # The opening line of a run: what the scenario is about, as a question or a situation, never
    # its outcome (the title and summary state the lesson: they are shown when it has run).
    about: str = ""
    # Kafka brokers the scenario needs at once (broker-failover kills a leader among three).
    # A requirement, not a broker's name: the runner skips the scenario, saying why, on a
    # stack whose Kafka cannot run that many (scenarios/engine/stage/kafka.py decides which).
    kafka_brokers: int = 1
    # The checkpoint stores it runs on (`run --checkpoint-store`). Most scenarios read the
    # checkpoint folder without Spark (offsets, commits, deletes), which works on a local
    # folder only so far; the runner skips them on a store, saying why.
    checkpoint_stores: tuple[str, ...] = ("local",)
    # Apache Kafka versions its brokers move to besides the run's own (kafka-upgrade's target):
    # fetched with the stack's jars before the first scenario, not half-way through this one.
    kafka_versions: tuple[str, ...] = ()
    # Whether it runs a user's query (`run --query FILE.py`) instead of the counter: its lesson
    # is about the checkpoint, not the counter, and the oracle judges the query at its end. A
    # scenario that does not says why in one line when given one (`without_query`).
    takes_query: bool = False
    without_query: str = "its lesson is the seed's counter itself: its output log and its count"
    # What it does with a user's query, for docs/your-query.md's table (written from here by
    # scenarios/report/query_scenarios.py); a fast test asks every scenario that takes one.
    with_query: str = ""
    # A scenario made of cases (the museum's exhibits): (name, one line) each, for `list`.
    cases: tuple[tuple[str, str], ...] = ()
    # How long a --fast run takes and why, for a scenario past LONG_RUN_SEC ("about 3 min: 270
    # batches, …"): a trainer plans with it. Empty: under LONG_RUN_SEC. Measured, not guessed:
    # benchmarks/run_profile.py names every scenario past it that says nothing.
    takes: str = ""


# Issue 35's bound for one scenario with --fast; a longer one says why in `takes`.
LONG_RUN_SEC = 90


def said_minutes(scenario: Scenario) -> float:
    """The minutes `scenario.takes` opens with ("about 2.5 min: …"), or 0 for one that says
    nothing (it takes less than LONG_RUN_SEC). `run -j` starts the longest first with it."""
    found = re.match(r"about ([0-9.]+) min:", scenario.takes)
    return float(found.group(1)) if found else 0.0
