"""The steps many scenarios take, declared once: each scenario names one and gives its own words.

Most scenarios start Kafka and the producer, start the Spark app on a new checkpoint, press
Enter for a negative key, and end by draining the producer and checking the output log. What
those steps do is the same everywhere; what they teach differs (a scenario about retention asks
about the earliest offset, one about a code change does not). So each function here holds the
words every use shares and takes the rest as keywords: a scenario passes what its lesson needs,
and the story reader (scenarios/report/story.py) reads the call as the step it makes.

Usage:
    with stage.step(steps.start_kafka(why="…", question="…", answer="…")):
        stage.kafka.start()
"""

from __future__ import annotations

from scenarios.engine.step import Step

__all__ = ["finish", "first_start", "negative_key", "start_kafka"]

START_KAFKA = "Start Kafka and the producer"
# What the live lines under the narration show while Kafka starts (the producer's console).
PRODUCER_LINES = (
    "the producer's lines below, one per interval: `Experience [earliest:latest]: key -> value`, "
    "where earliest:latest are the topic's first and next offsets"
)
APP_LINES = (
    "the app's batch lines below: `batch N: Experience-0 [from, until) rows=… count=…`, one "
    "per batch, the count running on"
)


def start_kafka(
    *,
    happens: str,
    why: str,
    question: str,
    answer: str,
    production: str = "size the topic's retention for your longest outage, and alert on "
    "consumer lag",
    watch: str = PRODUCER_LINES,
    title: str = START_KAFKA,
    giveaway: tuple[str, ...] | None = None,
    checks: tuple[str, ...] | None = None,
) -> Step:
    """Kafka (a broker of the run's kind) and the producer, one message a second."""
    return Step(**locals())  # every parameter is one of the step's words, by its name


def first_start(
    *,
    question: str,
    answer: str,
    happens: str = "the stateful counter starts a new query: no checkpoint yet, so it reads "
    "from startingOffsets (earliest, the topic's first offset)",
    why: str = "a new query takes startingOffsets; from its first batch on, only the "
    "checkpoint decides where it reads",
    production: str = "keep the checkpoint on durable storage: it is the query's identity, "
    "and `python -m spark_app inspect` reads it",
    watch: str = APP_LINES,
    title: str = "Start the Spark app",
    giveaway: tuple[str, ...] | None = None,
    checks: tuple[str, ...] | None = None,
) -> Step:
    """The Spark app's first start, on a checkpoint that does not exist yet."""
    return Step(**locals())  # every parameter is one of the step's words, by its name


def negative_key(
    *,
    question: str,
    answer: str,
    happens: str = "the producer's next message gets a negative key; the Spark app kills "
    "itself when it reads it (crash-once), as the seed's Runtime.getRuntime.halt(-1) did",
    why: str = "the crashed batch has no commit, so a restart replays it with the same offsets; "
    "the exactly-once sink rolls back what the crashed batch half wrote",
    production: str = "a crash in the middle of a batch is a replay, not a loss; make sure your "
    "code does not crash again on the same record (the poison-pill scenario)",
    watch: str = "the app's lines below stop in the middle of a batch; the producer's go on",
    title: str = "Press Enter in the producer: the next key is negative",
    giveaway: tuple[str, ...] | None = None,
    checks: tuple[str, ...] | None = None,
) -> Step:
    """Enter in the producer: a message whose negative key crashes the app once."""
    return Step(**locals())  # every parameter is one of the step's words, by its name


def finish(
    *,
    question: str = "After everything this scenario did to the app, how many values will be "
    "missing from the output log, or written twice?",
    answer: str = "None: every value 1..N is there exactly once, and the last Count is N.",
    happens: str = "the producer stops; the app reads what is left and is stopped; the output "
    "log is held against what the producer sent",
    why: str = "exactly once is the checkpoint's offsets and state together with an output "
    "written once per batch id",
    production: str = "run the same check on your sink: count distinct ids against the source",
    watch: str = "the producer's lines stop; the app's last batch lines catch up to its last "
    "offset",
    title: str = "Stop the producer, let the app catch up, check the output log",
    giveaway: tuple[str, ...] | None = None,
    checks: tuple[str, ...] = ("exactly once",),
) -> Step:
    """The usual ending (`stage.finish_exactly_once()`): every value sent, once."""
    return Step(**locals())  # every parameter is one of the step's words, by its name
