"""The throughput benchmark runs end to end against the embedded broker and prints its table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]


@pytest.mark.e2e
def test_benchmark_measures_both_clients_on_the_embedded_broker() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/kafka_throughput.py", "--messages", "2000", "--repeat", "1"],
        cwd=_REPO, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    rows = {m["client"]: m for m in re.finditer(
        r"^embedded\s+(?P<client>\S+)\s+(?P<produce>[\d,]+)\s+(?P<consume>[\d,]+)\s", done.stdout, re.M)}
    assert set(rows) == {"kafka-python", "confluent-kafka"}
    for row in rows.values():
        assert int(row["produce"].replace(",", "")) > 0 and int(row["consume"].replace(",", "")) > 0
    assert "librdkafka produces >= 100,000 msg/s" in done.stdout


def test_unknown_client_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/kafka_throughput.py", "--clients", "kafka-java", "--no-embedded"],
        cwd=_REPO, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2 and "unknown client" in done.stderr
