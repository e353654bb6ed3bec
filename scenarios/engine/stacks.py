"""Which Kafka and which Kafka source a run uses: a stack, spelled `KAFKA/SOURCE`.

Four stacks: `embedded/python` (our broker, our source: offline), `embedded/connector`,
`apache/python` and `apache/connector` (Apache Kafka read through Spark's own connector: what
production runs). A scenario never names one: the run's settings carry it, the stage's Kafka
part reads the Kafka half and its app part the source half.

Usage:
    stack = parse_stack("apache/connector")
    settings = stack.applied_to(settings)      # RunSettings(kafka="apache", source="spark-kafka")
    stack_of(settings).name                    # "apache/connector"
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scenarios.errors import ScenarioError

if TYPE_CHECKING:
    from scenarios.engine.settings import RunSettings

__all__ = ["KAFKAS", "SOURCES", "STACKS", "OFFLINE", "REAL", "Stack", "parse_stack", "source_word", "stack_of"]

KAFKAS = ("embedded", "apache")
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

    def applied_to(self, settings: RunSettings) -> RunSettings:
        return replace(settings, kafka=self.kafka, source=self.app_source)  # type: ignore[arg-type]


STACKS = tuple(Stack(kafka, source) for kafka in KAFKAS for source in SOURCES)
OFFLINE = Stack("embedded", "python")
REAL = Stack("apache", "connector")


def parse_stack(text: str) -> Stack:
    """`embedded/python`, `apache/connector`, …; `spark-kafka` is taken for `connector`."""
    kafka, _, source = text.strip().partition("/")
    source = "connector" if source == "spark-kafka" else source
    if kafka not in KAFKAS or source not in SOURCES:
        raise ScenarioError(f"unknown stack {text!r}: write KAFKA/SOURCE with KAFKA one of "
                            f"{', '.join(KAFKAS)} and SOURCE one of {', '.join(SOURCES)}, e.g. "
                            f"{REAL.name} or {OFFLINE.name}")
    return Stack(kafka, source)


def source_word(app_source: str) -> str:
    """The stack's word for the Spark app's `--source` value ("spark-kafka" -> "connector")."""
    return next(word for word, value in SOURCES.items() if value == app_source)


def stack_of(settings: RunSettings) -> Stack:
    return Stack(settings.kafka, source_word(settings.source))
