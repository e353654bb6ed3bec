"""Which Kafka and which Kafka source a run uses: a stack, spelled `KAFKA/SOURCE`.

Four stacks: `embedded/python` (our broker, our source: offline), `embedded/connector`,
`apache/python` and `apache/connector` (Apache Kafka read through Spark's own connector: what
production runs, and the default: REAL; `--offline` is OFFLINE). A scenario never names one: the
run's settings carry it, the stage's Kafka part reads the Kafka half and its app part the source half.

Usage:
    stack = parse_stack("apache/connector")
    settings = stack.applied_to(settings)      # RunSettings(kafka="apache", source="spark-kafka")
    stack_of(settings).name                    # "apache/connector"
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from scenarios.errors import ScenarioError

__all__ = [
    "KAFKAS",
    "SOURCES",
    "STACKS",
    "OFFLINE",
    "REAL",
    "DEFAULT",
    "Stack",
    "StackChoice",
    "parse_stack",
    "source_word",
    "stack_of",
    "add_stack_options",
    "chosen_stack",
]

KAFKAS = ("embedded", "apache")


class StackChoice(Protocol):
    """What says which Kafka and which source: RunSettings does (scenarios/engine/settings.py,
    which reads this module; naming the protocol, not RunSettings, keeps the import one-way)."""

    @property
    def kafka(self) -> str: ...

    @property
    def source(self) -> str: ...


Chosen = TypeVar("Chosen", bound=StackChoice)
# The stack's word for a source, and the Spark app's `--source` value it stands for.
SOURCES = {"python": "python", "connector": "spark-kafka"}


@dataclass(frozen=True)
class Stack:
    kafka: str
    source: str  # the stack's word: "python" or "connector"

    @property
    def name(self) -> str:
        return f"{self.kafka}/{self.source}"

    @property
    def folder(self) -> str:
        """The stack as a folder name (a matrix keeps each stack's reports in one)."""
        return self.name.replace("/", "-")

    @property
    def app_source(self) -> str:
        return SOURCES[self.source]

    def applied_to(self, settings: Chosen) -> Chosen:
        """`settings` (a dataclass, e.g. RunSettings) with this stack's Kafka and source."""
        return replace(settings, kafka=self.kafka, source=self.app_source)  # type: ignore[type-var]


STACKS = tuple(Stack(kafka, source) for kafka in KAFKAS for source in SOURCES)
OFFLINE = Stack("embedded", "python")
REAL = Stack("apache", "connector")
DEFAULT = REAL


def parse_stack(text: str) -> Stack:
    """`embedded/python`, `apache/connector`, …; `spark-kafka` is taken for `connector`."""
    kafka, _, source = text.strip().partition("/")
    source = "connector" if source == "spark-kafka" else source
    if kafka not in KAFKAS or source not in SOURCES:
        raise ScenarioError(
            f"unknown stack {text!r}: write KAFKA/SOURCE with KAFKA one of "
            f"{', '.join(KAFKAS)} and SOURCE one of {', '.join(SOURCES)}, e.g. "
            f"{REAL.name} or {OFFLINE.name}"
        )
    return Stack(kafka, source)


def source_word(app_source: str) -> str:
    """The stack's word for the Spark app's `--source` value ("spark-kafka" -> "connector")."""
    return next(word for word, value in SOURCES.items() if value == app_source)


def stack_of(settings: StackChoice) -> Stack:
    return Stack(settings.kafka, source_word(settings.source))


def add_stack_options(run: argparse.ArgumentParser) -> None:
    """Which Kafka and which source: each alone, both at once (--stack), or --offline."""
    stack = run.add_argument_group("which Kafka, which source (a stack: KAFKA/SOURCE)")
    stack.add_argument(
        "--kafka",
        choices=KAFKAS,
        default=None,
        help=f"apache: Apache Kafka itself, fetched once from Maven Central; "
        f"embedded: our broker, offline (default {DEFAULT.kafka})",
    )
    stack.add_argument(
        "--source",
        choices=sorted(set(SOURCES.values())),
        default=None,
        help=f"the Spark app's Kafka source: spark-kafka (Spark's own connector, "
        f"fetched once) or python (ours, offline) (default {DEFAULT.app_source})",
    )
    stack.add_argument(
        "--stack",
        metavar="KAFKA/SOURCE",
        type=parse_stack,
        default=None,
        help=f"both at once: {', '.join(s.name for s in STACKS)}",
    )
    stack.add_argument(
        "--offline", action="store_true", help=f"the stand-ins, {OFFLINE.name}: nothing is fetched"
    )


def chosen_stack(args: argparse.Namespace) -> Stack:
    """The stack the flags name; two flags that disagree are one line, not a guess."""
    named = [s for s in (args.stack, OFFLINE if args.offline else None) if s is not None]
    base = named[0] if named else DEFAULT
    if len(named) > 1 and named[0] != named[1]:
        raise ScenarioError(f"--stack {args.stack.name} and --offline disagree: give one")
    kafka = args.kafka or base.kafka
    source = base.source if args.source is None else source_word(args.source)
    chosen = Stack(kafka, source)
    if named and chosen != base:
        raise ScenarioError(
            f"--kafka/--source ask for {chosen.name} but "
            f"{'--offline' if args.offline else '--stack'} says {base.name}: give one"
        )
    return chosen
