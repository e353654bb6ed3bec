"""Apache Kafka's broker jars for a version, with the log4j2 binding its POMs leave out.

Kafka's POMs bring slf4j-api but no SLF4J binding (the release tarball adds
`log4j-slf4j-impl`), so a broker started from them logs nothing. We resolve Kafka first,
read the slf4j and log4j versions off the jars it really brings, and then fetch the matching
binding: slf4j 1.x → `log4j-slf4j-impl`, 2.x → `log4j-slf4j2-impl`, at Kafka's log4j version.
Our log4j2 configuration (`log4j2.xml` beside this file) writes INFO to one file per node.

Usage: `python -m kafka_app.apache.jars [--kafka-version 4.1.2]` fetches once, with progress
(CI runs it before the tests); in code, `classpath("4.1.2")`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from kafka_app.kafka_choice import DEFAULT_VERSION, VERSION_HINT, check_version
from maven_jars import JarFetchError, resolve_jars
from maven_jars.prefetch import prefetch_main

# DEFAULT_VERSION and check_version are the choice's (kafka_choice.py), named here too: the
# version this module fetches by default, where the scenarios and the container read it.
__all__ = ["DEFAULT_VERSION", "LOG4J2_CONFIG", "classpath", "kafka_jars", "check_version"]

LOG4J2_CONFIG = Path(__file__).with_name("log4j2.xml")
# Kafka 4.0 brings no log4j at all; its tarball ships log4j 2.24.3.
_FALLBACK_LOG4J = "2.24.3"
OFFLINE_HINT = "`--offline` runs the embedded broker, which needs no jars"


def _jar_version(jars: Sequence[Path], artifact: str) -> str | None:
    for jar in jars:
        match = re.match(rf"^{re.escape(artifact)}-(\d[\w.-]*)\.jar$", jar.name)
        if match:
            return match.group(1)
    return None


def _binding(kafka: Sequence[Path]) -> str:
    slf4j = _jar_version(kafka, "slf4j-api") or "1.7.36"
    log4j = _jar_version(kafka, "log4j-api") or _FALLBACK_LOG4J
    artifact = "log4j-slf4j-impl" if slf4j.startswith("1.") else "log4j-slf4j2-impl"
    return f"org.apache.logging.log4j:{artifact}:{log4j}"


def kafka_jars(version: str = DEFAULT_VERSION, *, progress: bool = True) -> list[Path]:
    """Every jar the broker and its storage tool need, fetched once into the project's cache."""
    problem = check_version(version)
    if problem:
        raise JarFetchError(
            f"org.apache.kafka:kafka_2.13:{version}", "not a Kafka 4.x version", VERSION_HINT
        )
    core = f"org.apache.kafka:kafka_2.13:{version}"
    try:
        kafka = resolve_jars([core], name=f"kafka-{version}", progress=progress)
        logging = resolve_jars([_binding(kafka)], name=f"kafka-{version}-log4j2", progress=progress)
    except JarFetchError as error:
        hint = VERSION_HINT if "not served" in error.cause else ""
        raise (error.with_hint(hint) if hint else error).with_hint(OFFLINE_HINT) from error
    # The binding brings log4j-api and -core again, mostly the same files: keep one of each.
    names = {jar.name for jar in kafka}
    return kafka + [jar for jar in logging if jar.name not in names]


def classpath(version: str = DEFAULT_VERSION, *, progress: bool = True) -> str:
    """The `-cp` value for `java`."""
    return os.pathsep.join(str(jar) for jar in kafka_jars(version, progress=progress))


def main(argv: Sequence[str] | None = None) -> int:
    return prefetch_main(
        argv,
        prog="python -m kafka_app.apache.jars",
        description="Fetch Apache Kafka's jars once into the project's cache.",
        options=_version_option,
        errors=(JarFetchError,),
        what=lambda args: f"Kafka {args.kafka_version}",
        fetch=lambda args: kafka_jars(args.kafka_version),
    )


def _version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kafka-version",
        default=DEFAULT_VERSION,
        metavar="V",
        help="Kafka version (default %(default)s)",
    )


if __name__ == "__main__":
    sys.exit(main())
