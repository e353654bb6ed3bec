"""JVM flags the Spark JVMs we start share: the driver, a cluster's daemons and executors, the
class archive's writer, and spark-class's launcher.

Usage: `[..., C1_ONLY, NO_PERF_FILE]` in a JVM's options
"""

from __future__ import annotations

from collections.abc import Mapping

from maven_jars.jvm import NO_PERF_FILE

__all__ = ["C1_ONLY", "NO_PERF_FILE", "launcher_opts"]

# The driver, the executors and a cluster's daemons mostly move data and wait; on two cores the
# C2 compiler threads of a starting JVM compete with everything else starting (the Python
# workers, the other JVMs). C1 only brought a cluster start's first output line from 23 s to
# 18 s (BENCHMARKS.md "Cluster starts").
C1_ONLY = "-XX:TieredStopAtLevel=1"


def launcher_opts(environ: Mapping[str, str]) -> str:
    """SPARK_LAUNCHER_OPTS for spark-class's own small JVM (the launcher that builds a driver's or
    daemon's command, which no spark.* option reaches): as given, with NO_PERF_FILE added."""
    given = environ.get("SPARK_LAUNCHER_OPTS", "").split()
    return " ".join(given if NO_PERF_FILE in given else [*given, NO_PERF_FILE])
