"""kcat (librdkafka 2.0.2, which misreads top-level tagged fields) against the embedded broker."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.kafka_app.broker_helpers import create_topic

KCAT = shutil.which("kcat")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(KCAT is None, reason="kcat is not installed (apt-get install kcat)"),
]


def test_kcat_produces_and_consumes(embedded_broker) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap, "cat", partitions=2)
    lines = "".join(f"k{i}:v{i}\n" for i in range(20))
    produced = subprocess.run([KCAT, "-b", bootstrap, "-P", "-t", "cat", "-K:"], input=lines,
                              text=True, capture_output=True, timeout=30)
    assert produced.returncode == 0, produced.stderr
    consumed = subprocess.run([KCAT, "-b", bootstrap, "-C", "-t", "cat", "-e", "-q",
                               "-f", "%k=%s\\n"], text=True, capture_output=True, timeout=30)
    assert consumed.returncode == 0, consumed.stderr
    assert sorted(consumed.stdout.split()) == sorted(f"k{i}=v{i}" for i in range(20))


def test_kcat_lists_metadata(embedded_broker) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap, "listed", partitions=3)
    listed = subprocess.run([KCAT, "-b", bootstrap, "-L", "-t", "listed"], text=True,
                            capture_output=True, timeout=30)
    assert listed.returncode == 0, listed.stderr
    assert 'topic "listed" with 3 partitions' in listed.stdout
