"""The checkpoint on local, hdfs and s3 side by side: batch, restart, catch-up, bytes, the store.

One run measures the Spark app with its checkpoint on each store, one after the other, on one
embedded broker, with real processes (issue 34's speed part): `local` (a folder, the ratios'
base), `hdfs` (a MiniDFSCluster) and `s3` (s3proxy through S3A), each store started as a user
starts it (`python -m checkpoint_stores hdfs|s3`, jars cached beforehand) just before its
measures and stopped after them. Per store, with benchmarks/state_compare.py's bench (its
phases and memory sampling, as there): first start on a fresh checkpoint, 1-message batches,
restarts after kill -9, a catch-up, and a soak whose checkpoint is then measured (on a store,
from a copy read through its own API: WebHDFS or S3). Below the app's figures, the store's
own: its start (JVM to first answer), its JVM's resident memory once ready and at its peak by
the end.

It prints one markdown table, one column per store with its ratio to local.

Usage:
    uv run python benchmarks/store_compare.py   # --messages 10 --restarts 2 --backlog 20000 --batches 100
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script: the project's packages are beside this folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

from broker_process import memory_kb, topic_broker  # noqa: E402
from state_compare import Configuration, MemorySampler, Result, StateBench, footer, rows, table  # noqa: E402
from store_start import start_store, stop_store  # noqa: E402

from checkpoint_stores import CheckpointPlace  # noqa: E402
from checkpoint_stores.cli import parse_ready_line, web_address  # noqa: E402
from checkpoint_stores.jars import client_jars, server_jars  # noqa: E402
from checkpoint_stores.mirror import StoreApi, copy_down  # noqa: E402
from scenarios.checker.folder_usage import CheckpointUsage  # noqa: E402
from scenarios.engine.observers.checkpoint_size import measure  # noqa: E402
from spark_app.runtime.connector_jars import connector_jars  # noqa: E402
from spark_app.runtime.spark_version import installed_spark_version  # noqa: E402

STORES = ("local", "hdfs", "s3")


class StoreBench(StateBench):
    """state_compare's bench; a store's checkpoint is measured from a copy of it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.apis: dict[str, tuple[StoreApi, str]] = {}  # store kind -> (its API, its URL)

    def checkpoint_usage(self, folder: str) -> CheckpointUsage:
        config = self.folders[folder][0]
        kind = config.options.get("checkpoint_store", "local")
        local = self.work / folder / "checkpoints"
        if kind == "local":
            return measure(local)
        api, url = self.apis[kind]
        return measure(
            copy_down(api, CheckpointPlace(kind, local, url).location, self.work / folder / "copy")
        )


def _store_rows(stores: dict[str, dict[str, float]]) -> list[tuple[str, str, dict[str, float]]]:
    def each(key: str) -> dict[str, float]:
        return {kind: stores.get(kind, {}).get(key, float("nan")) for kind in STORES}

    return [
        ("store: start, JVM to first answer", "s", each("start_sec")),
        ("store: JVM RSS once ready", "MB", each("jvm_rss_mb")),
        ("store: JVM RSS peak, at the end", "MB", each("jvm_peak_end_mb")),
    ]


def _measure_store(
    bench: StoreBench, kind: str, args: argparse.Namespace
) -> tuple[Result, dict[str, float]]:
    if kind == "local":
        return bench.run(Configuration("local", "local folder", {}), args), {}
    process, jvm, figures = start_store(kind, bench.work / f"{kind}-store")
    try:
        ready = parse_ready_line(process.output())
        assert ready is not None  # start_store waited for it
        url = ready[1]
        bench.apis[kind] = (StoreApi(kind, web_address(process.output()) or url), url)
        config = Configuration(
            kind, f"on {kind}", {"checkpoint_store": kind, "checkpoint_store_url": url}
        )
        result = bench.run(config, args)
        figures["jvm_peak_end_mb"] = memory_kb(jvm, "VmHWM") / 1024
        return result, figures
    finally:
        stop_store(process, jvm)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10, help="1-message batches per store")
    parser.add_argument("--restarts", type=int, default=2, help="kill -9 and a restart, per store")
    parser.add_argument(
        "--backlog", type=int, default=20_000, help="messages caught up in one batch"
    )
    parser.add_argument("--batches", type=int, default=100, help="batches of the measured soak")
    parser.add_argument("--trigger-sec", type=float, default=0.2, help="the soak's trigger")
    parser.add_argument("--rate", type=float, default=20.0, help="messages a second in the soak")
    parser.add_argument("--sample-sec", type=float, default=0.5, help="how often RSS is read")
    args = parser.parse_args()
    connector_jars(installed_spark_version())  # cached before any clock starts
    for kind in STORES[1:]:  # fetched before any clock starts, as the scenarios' prefetch does
        server_jars(kind)
        client_jars(kind)
    work = Path(tempfile.mkdtemp(prefix="store-bench-", dir=REPO / "log"))
    print(f"store_compare: work folder {work}", file=sys.stderr)
    sampler = MemorySampler(args.sample_sec)
    sampler.start()
    began = time.monotonic()
    try:
        with topic_broker(work) as bootstrap:
            bench = StoreBench(work, bootstrap, "spark-kafka", sampler)
            bench.warm_up(Configuration("local", "local folder", {}))
            measured = {kind: _measure_store(bench, kind, args) for kind in STORES}
    finally:
        sampler.stop()
    results = {kind: result for kind, (result, _) in measured.items()}
    stores = {kind: figures for kind, (_, figures) in measured.items()}
    print(
        table(
            rows(results, args) + _store_rows(stores),
            {kind: "local folder" if kind == "local" else kind for kind in STORES},
        )
    )
    print(footer(began, "every app on Spark's connector"))
    shutil.rmtree(work)  # kept when a measure failed, to look into
    return 0


if __name__ == "__main__":
    sys.exit(main())
