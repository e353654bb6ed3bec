"""Fetch Maven jars once into a local cache, with the Ivy resolver PySpark ships.

Both apps use it: the Kafka app for Apache Kafka's broker, the Spark app for Spark's Kafka
connector. It needs Java and PySpark's `ivy-*.jar`, nothing else (no Maven); see
docs/decisions.md, "Fetching jars: Ivy from PySpark".

Usage:
    jars = resolve_jars(["org.apache.kafka:kafka_2.13:4.1.2"], name="kafka-4.1.2")
    classpath = os.pathsep.join(map(str, jars))
"""

from __future__ import annotations

from maven_jars.cache import cache_root
from maven_jars.errors import JarFetchError
from maven_jars.java import find_java
from maven_jars.resolve import resolve_jars

__all__ = ["JarFetchError", "cache_root", "find_java", "resolve_jars"]
