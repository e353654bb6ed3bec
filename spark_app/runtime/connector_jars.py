"""Spark's Kafka connector as jar files, for the running Spark: fetched once, then read from cache.

`--source spark-kafka` hands these jars to `spark.jars` rather than letting Spark resolve
`spark.jars.packages` itself: the fetch shows progress, a damaged cache entry mends itself, a
failure is one line (maven_jars does all three), and Spark's own resolver also looks in `~/.m2`,
where a POM fetched without its jar made it fail here ("NOT FOUND ... local-m2-cache").

The connector's version is always the running Spark's (Spark's docs link
`spark-sql-kafka-0-10_2.13:<SPARK_VERSION>`; it depends on that Spark's internals). When the
registry lacks it, the error names the newest version it does serve; nothing is swapped.

Usage:
    jars = connector_jars("4.2.0")          # [Path, ...]; ConnectorUnavailableError if not served
    builder.config("spark.jars", ",".join(map(str, jars)))
"""

from __future__ import annotations

import re
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree

from maven_jars import JarFetchError, resolve_jars
from maven_jars.ivy import MAVEN_CENTRAL, repository
from maven_jars.prefetch import prefetch_main
from spark_app.errors import ConnectorUnavailableError

__all__ = [
    "CONNECTOR_ARTIFACT",
    "connector_coordinate",
    "connector_jars",
    "is_excluded",
    "newest_served",
    "served_versions",
]

CONNECTOR_GROUP = "org.apache.spark"
CONNECTOR_ARTIFACT = "spark-sql-kafka-0-10_2.13"
# The connector's own dependency of the same version. Maven Central (as reached on 2026-11-24)
# lists the connector at 4.0.4 and 4.1.3 but this one only at 4.0.0, 4.1.1 and 4.2.0, so the
# connector of 4.0.4 or 4.1.3 cannot be resolved: "served" means both are listed.
_TOKEN_PROVIDER = "spark-token-provider-kafka-0-10_2.13"
# What Spark's MavenUtils leaves out of `spark.jars.packages` (IVY_DEFAULT_EXCLUDES and
# `*:scala-library`): the running Spark has them already, in its own version.
_SPARK_MODULES = (
    "catalyst_",
    "core_",
    "graphx_",
    "kvstore_",
    "launcher_",
    "mllib_",
    "mllib-local_",
    "network-common_",
    "network-shuffle_",
    "repl_",
    "sketch_",
    "sql_",
    "streaming_",
    "tags_",
    "unsafe_",
)
_RELEASE = re.compile(r"\d+\.\d+\.\d+")
_METADATA_TIMEOUT_SEC = 10.0


def connector_coordinate(spark_version: str) -> str:
    return f"{CONNECTOR_GROUP}:{CONNECTOR_ARTIFACT}:{spark_version}"


def is_excluded(jar: Path) -> bool:
    """True for a jar the running Spark already has: Spark's core modules and scala-library."""
    name = jar.name
    if name.startswith("scala-library-"):
        return True
    return any(name.startswith(f"spark-{module}") for module in _SPARK_MODULES)


def _spark_jar_names() -> set[str]:
    """File names in PySpark's own jars folder: the same file again would only be shipped twice."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    folders = [Path(p, "jars") for p in (spec.submodule_search_locations or [])] if spec else []
    return {jar.name for folder in folders for jar in folder.glob("*.jar")}


def connector_jars(spark_version: str, progress: bool = True) -> list[Path]:
    """The connector for Spark `spark_version` and its runtime dependencies, minus what Spark has.

    Fetched on first use into the project's cache (`jars/spark-kafka-<version>/`). Raises
    ConnectorUnavailableError, one line, when they cannot be had.
    """
    coordinate = connector_coordinate(spark_version)
    try:
        jars = resolve_jars([coordinate], name=f"spark-kafka-{spark_version}", progress=progress)
    except JarFetchError as error:
        raise _unavailable(spark_version, error) from error
    present = _spark_jar_names()
    return [jar for jar in jars if not is_excluded(jar) and jar.name not in present]


def _unavailable(spark_version: str, error: JarFetchError) -> ConnectorUnavailableError:
    """Say which connector is missing; if the registry lacks this version, which one it has."""
    served = served_versions()
    if served and spark_version not in served:
        newest = newest_served(served)
        line = ".".join(spark_version.split(".")[:2])
        same_line = newest_served([v for v in served if v.startswith(line + ".")])
        also = f" (on the {line} line: {same_line})" if same_line not in ("", newest) else ""
        return ConnectorUnavailableError(
            f"{_registry()} does not serve Spark's Kafka connector for the running Spark "
            f"{spark_version} ({CONNECTOR_ARTIFACT} with {_TOKEN_PROVIDER}); "
            f"the newest it serves is {newest}{also}: install `pyspark[sql]=={newest}`, "
            "or run with `--offline` (our Python source), which needs no jars"
        )
    return ConnectorUnavailableError(
        f"Spark's Kafka connector: {error}, or run with "
        f"`--offline` (our Python source), which needs no jars"
    )


def _registry() -> str:
    return "Maven Central" if repository() == MAVEN_CENTRAL else repository()


def served_versions() -> list[str]:
    """The released versions for which the repository lists both the connector and its token
    provider (maven-metadata.xml), oldest first; empty when a list cannot be read (the caller
    then reports the fetch's own error)."""
    connector, provider = _listed(CONNECTOR_ARTIFACT), _listed(_TOKEN_PROVIDER)
    return sorted((v for v in connector & provider if _RELEASE.fullmatch(v)), key=_key)


def _listed(artifact: str) -> set[str]:
    url = f"{repository()}{CONNECTOR_GROUP.replace('.', '/')}/{artifact}/maven-metadata.xml"
    try:
        with urllib.request.urlopen(url, timeout=_METADATA_TIMEOUT_SEC) as response:
            root = ElementTree.fromstring(response.read())
    except (OSError, urllib.error.URLError, ElementTree.ParseError):
        return set()
    return {v.text.strip() for v in root.iter("version") if v.text}


def newest_served(served: list[str]) -> str:
    """The newest release in `served`, "" if none: the metadata's own <latest> may be a preview."""
    return max(served, key=_key, default="")


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m spark_app.runtime.connector_jars`: fetch the running Spark's connector ahead
    of time (CI does, so no test pays for the fetch)."""
    from spark_app.runtime.spark_version import installed_spark_version

    version = installed_spark_version()
    return prefetch_main(
        argv,
        prog="python -m spark_app.runtime.connector_jars",
        description="Fetch the running Spark's Kafka connector once into the project's cache.",
        errors=(ConnectorUnavailableError,),
        what=lambda args: f"Spark's Kafka connector for {version}",
        fetch=lambda args: connector_jars(version),
    )


if __name__ == "__main__":
    sys.exit(main())
