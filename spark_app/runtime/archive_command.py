"""`python -m spark_app class-archive`: write the class archive from what an app left behind.

An app without an archive lists the classes its JVM loads and, after its first batch with data,
writes the archive in the background; a stop of the app kills that writer (class_cache.py). A
scenario's apps are stopped or killed within seconds, so their writers never finished, and a
fresh clone's `run all` started Spark about 80 times without the archive, 4 s slower each. This
command resumes the writing from the list the app kept, in the foreground, for the scenario
runner (which starts it between scenarios and stops it at the end of the run) and for anyone
preparing a machine.

Exit codes: 0 the archive is in place (already, or written now); 3 there is nothing to write
from yet (no app has listed its classes since the last attempt) or another process is writing
it; 1 writing failed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from spark_app.runtime.class_cache import ClassCache, default_cache_dir
from spark_app.runtime.session import java_binary

__all__ = ["ARCHIVE_IN_PLACE", "NOTHING_TO_WRITE", "archive_parser", "run_archive"]

ARCHIVE_IN_PLACE, NOTHING_TO_WRITE = 0, 3


def archive_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spark_app class-archive",
        description="Write Spark's class archive (about 45 s of CPU, niced) from the classes an "
        "earlier run of the app listed, so that every later start takes about 4 s "
        "less. Exit 0 once it is in place, 3 if no app has listed classes yet.",
    )
    p.add_argument(
        "--class-cache-dir",
        type=Path,
        default=default_cache_dir(),
        metavar="DIR",
        help="the folder the app keeps its archive in (the app's --class-cache-dir)",
    )
    return p


def run_archive(argv: list[str]) -> int:
    args = archive_parser().parse_args(argv)
    cache = ClassCache(args.class_cache_dir, java_binary() or "java")
    if not cache.writing():
        print(f"Spark's class archive is in place: {cache.archive}", flush=True)
        return ARCHIVE_IN_PLACE
    cache.prune()
    writer = cache.resume_writing(lambda line: print(line, flush=True))
    if writer is None:
        print(
            "nothing to write Spark's class archive from yet: a run of the app lists its "
            "classes first (or another process is writing it)",
            flush=True,
        )
        return NOTHING_TO_WRITE
    try:
        writer.wait()
    finally:
        writer.stop()  # Ctrl-C: the writer goes too, and what it wrote is discarded
    return ARCHIVE_IN_PLACE if writer.adopted else 1
