"""The prefetch commands' shared body: fetch once, one line for the result or the error.

`python -m kafka_app.apache.jars` and `python -m spark_app.runtime.connector_jars` fetch their
jars ahead of time (CI does, so that no test pays for a first fetch); they differ only in what
they fetch and how they name it.

Usage: `return prefetch(lambda: kafka_jars(v), f"Kafka {v}", (JarFetchError,))`
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["prefetch"]


def prefetch(fetch: Callable[[], list[Path]], what: str,
             errors: tuple[type[Exception], ...]) -> int:
    """Run `fetch`; print where the jars are (exit 0) or the fetch's one-line error (exit 1)."""
    try:
        jars = fetch()
    except errors as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{what}: {len(jars)} jars in {jars[0].parent}")
    return 0
