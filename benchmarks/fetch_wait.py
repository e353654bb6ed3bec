"""What Kafka's `fetch.max.wait.ms` costs Spark's connector on a caught-up partition.

Each task of the connector polls its partition and then asks, through the same consumer, for the
partition's earliest and latest offsets (Spark's `InternalKafkaConsumer.fetch` calls
`getAvailableOffsetRange` after every poll). By then the consumer has already sent its next
fetch, and a broker answers one request per connection at a time: when nothing new has arrived,
Kafka holds that fetch for `fetch.max.wait.ms` (500 ms by default) before it answers the offsets
request queued behind it. So on a topic that is read as fast as it is written, every batch lasts
at least half a second.

One run measures, on one broker (Apache Kafka unless `--kafka embedded`), with real processes
(`python -m spark_app`), each with its own checkpoint and output log: the app on Spark's
connector with Kafka's default, the same with `--source-option kafka.fetch.max.wait.ms=<lowered>`,
and our source (`--source python`, which reads with kafka-python and `fetch_max_wait_ms=100`), a
message every 1.3 s. It prints the median 1-message batch (`took` on the console) and the median
time from sending a message to its output line, and the ratio of the lowered setting to the
default.

Usage: `python benchmarks/fetch_wait.py [--messages 20] [--lowered 100] [--kafka apache|embedded]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from broker_process import KAFKAS, topic_broker  # noqa: E402
from spark_latency import _TOOK, OutputWatcher, Sender, start_app, stop_app, wait_for  # noqa: E402

from benchmarks.work_folder import work_folder  # noqa: E402
from spark_app.runtime.connector_jars import connector_jars  # noqa: E402
from spark_app.runtime.spark_version import installed_spark_version  # noqa: E402

_WARM_UP = 3  # messages after the first output that are not counted: the JVM is still warming
_START_SEC = 600


@dataclass
class Setting:
    label: str
    options: tuple[str, ...]


@dataclass
class Figures:
    took_ms: float
    send_to_output_sec: float
    batches: int


def settings(lowered: int) -> list[Setting]:
    return [
        Setting("connector, Kafka's default (500 ms)", ("--source", "spark-kafka")),
        Setting(
            f"connector, kafka.fetch.max.wait.ms={lowered}",
            ("--source", "spark-kafka", "--source-option", f"kafka.fetch.max.wait.ms={lowered}"),
        ),
        Setting("ours (`--source python`)", ("--source", "python")),
    ]


def measure(
    setting: Setting, folder: Path, bootstrap: str, sender: Sender, messages: int
) -> Figures:
    """Start the app on a fresh checkpoint, send a message every 1.3 s, stop it."""
    folder.mkdir(parents=True)
    watcher = OutputWatcher(folder / "log" / "streaming-output.log")
    watcher.start()
    # Value n sits at offset n - 1: the fresh checkpoint starts at the first message sent now.
    start = json.dumps({"Experience": {"0": sender.next_value - 1}})
    app = start_app(bootstrap, folder, "app", "--starting-offsets", start, *setting.options)
    try:
        latencies = []
        first, _ = sender.send()
        wait_for(
            lambda: first in watcher.seen or app.poll() is not None,
            _START_SEC,
            f"{setting.label}: first output",
        )
        if first not in watcher.seen:
            raise SystemExit(f"benchmark: the app stopped; see {folder / 'app.err'}")
        for n in range(_WARM_UP + messages):
            value, sent = sender.send()
            wait_for(lambda value=value: value in watcher.seen, 60, f"message {value}")
            if n >= _WARM_UP:
                latencies.append(watcher.seen[value] - sent)
            time.sleep(max(0.0, sent + 1.3 - time.monotonic()))  # not in step with the trigger
    finally:
        stop_app(app)
        watcher.stop()
    took = [int(ms) for rows, ms in _TOOK.findall((folder / "app.out").read_text()) if rows == "1"]
    took = took[
        1 + _WARM_UP :
    ]  # the same batches the latencies leave out: the first and the warm-up
    return Figures(statistics.median(took), statistics.median(latencies), len(took))


def table(results: dict[str, Figures], lowered: int) -> str:
    labels = list(results)
    default, low = results[labels[0]], results[labels[1]]
    lines = [
        "| measure | " + " | ".join(labels) + " | lowered / default |",
        "|---|" + "---|" * (len(labels) + 1),
        "| 1-message batch, median `took` | "
        + " | ".join(f"{r.took_ms / 1000:.2f} s" for r in results.values())
        + f" | {low.took_ms / default.took_ms:.2f} |",
        "| send to output line, median | "
        + " | ".join(f"{r.send_to_output_sec:.2f} s" for r in results.values())
        + f" | {low.send_to_output_sec / default.send_to_output_sec:.2f} |",
        f"\nat least {min(r.batches for r in results.values())} batches each, fetch.max.wait.ms lowered "
        f"to {lowered} ms; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the "
        f"end; PySpark {installed_spark_version()}",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20, help="1-message batches per setting")
    parser.add_argument(
        "--lowered", type=int, default=100, help="kafka.fetch.max.wait.ms to compare"
    )
    parser.add_argument("--kafka", choices=KAFKAS, default="apache")
    parser.add_argument("--work-dir", type=Path, default=None)
    args = parser.parse_args()
    with work_folder(args.work_dir, "fetch-wait-") as work:
        connector_jars(installed_spark_version())  # cached before any clock starts
        with topic_broker(work, kafka=args.kafka, output=work / "broker.out") as bootstrap:
            sender = Sender(bootstrap)
            results = {
                s.label: measure(s, work / f"run{i}", bootstrap, sender, args.messages)
                for i, s in enumerate(settings(args.lowered))
            }
            sender.producer.close()
        print(table(results, args.lowered))
        return 0


if __name__ == "__main__":
    sys.exit(main())
