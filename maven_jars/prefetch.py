"""The prefetch command both apps offer: fetch once, one line for the result or the error.

`python -m kafka_app.apache.jars` and `python -m spark_app.runtime.connector_jars` fetch their
jars ahead of time (CI does, so that no test pays for a first fetch); they differ only in what
they fetch, how they name it and their options, so the command itself lives here.

This module owns the closing line (`Kafka 4.1.2: 46 jars in /root/.cache/…`): it prints it, and
`is_fetched_line` recognises it for scenarios' jar prefetch, which shows a fetch's progress but
not that line.

Usage:
    def main(argv=None) -> int:
        return prefetch_main(argv, prog="python -m kafka_app.apache.jars", description="…",
                             options=add_version_option, errors=(JarFetchError,),
                             what=lambda args: f"Kafka {args.kafka_version}",
                             fetch=lambda args: kafka_jars(args.kafka_version))
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["prefetch_main", "prefetch", "fetched_line", "is_fetched_line"]

_FETCHED = re.compile(r": \d+ jars in /")


def prefetch_main(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    what: Callable[[argparse.Namespace], str],
    fetch: Callable[[argparse.Namespace], list[Path]],
    errors: tuple[type[Exception], ...],
    options: Callable[[argparse.ArgumentParser], None] = lambda parser: None,
) -> int:
    """Parse the command line (`options` adds the app's own), then `prefetch`."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    options(parser)
    args = parser.parse_args(argv)
    return prefetch(lambda: fetch(args), what(args), errors)


def prefetch(
    fetch: Callable[[], list[Path]], what: str, errors: tuple[type[Exception], ...]
) -> int:
    """Run `fetch`; print where the jars are (exit 0) or the fetch's one-line error (exit 1)."""
    try:
        jars = fetch()
    except errors as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(fetched_line(what, jars))
    return 0


def fetched_line(what: str, jars: Sequence[Path]) -> str:
    """The closing line of a fetch that succeeded: what, how many jars, and their folder."""
    return f"{what}: {len(jars)} jars in {jars[0].parent}"


def is_fetched_line(line: str) -> bool:
    """True for `fetched_line`'s line (the fetch's progress lines are not)."""
    return _FETCHED.search(line) is not None
