"""The lines of `python -m spark_app read` (one batch read of the topic): the opening line,
printed before Spark starts, and the closing line with the records per partition.

A scenario cuts Kafka after the opening line, so the cut meets the connector's first offset
look-up rather than the session's start (the museum's SPARK-55561); the closing line is read
back with `parse_read_line`.

Usage: `print(reading_line(topic, servers, version))`; `read_line(topic, {0: (42, 0, 41)})`
"""

from __future__ import annotations

import re

__all__ = ["READING_WORDS", "reading_line", "read_line", "parse_read_line"]

READING_WORDS = "Reading once as a batch query:"

_READ = re.compile(r"^read (\d+) records of (\S+?)(?::|$)", re.MULTILINE)


def reading_line(topic: str, bootstrap_servers: str, spark_version: str) -> str:
    return (
        f"{READING_WORDS} {topic} from {bootstrap_servers} through Spark {spark_version}'s "
        f"Kafka connector, earliest to latest"
    )


def read_line(topic: str, per_partition: dict[int, tuple[int, int, int]]) -> str:
    """The closing line; `per_partition`: partition -> (records, lowest offset, highest)."""
    total = sum(count for count, _, _ in per_partition.values())
    ranges = ", ".join(
        f"{topic}-{p} [{low}, {high + 1}) {count}"
        for p, (count, low, high) in sorted(per_partition.items())
    )
    return f"read {total} records of {topic}" + (f": {ranges}" if ranges else "")


def parse_read_line(text: str) -> tuple[int, str] | None:
    """(records, topic) from the closing line in `text`, or None when the read did not end."""
    found = _READ.search(text)
    return (int(found.group(1)), found.group(2)) if found else None
