"""kcat (librdkafka 2.0.2, which misreads top-level tagged fields) against the embedded broker and
Apache Kafka (every test takes `kafka_broker`): the same answers from both."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.kafka_app.broker.broker_helpers import create_topic, delete_records_before

KCAT = shutil.which("kcat")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(KCAT is None, reason="kcat is not installed (apt-get install kcat)"),
]


def test_kcat_produces_and_consumes(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "cat", partitions=2)
    lines = "".join(f"k{i}:v{i}\n" for i in range(20))
    produced = subprocess.run(
        [KCAT, "-b", bootstrap, "-P", "-t", "cat", "-K:"],
        input=lines,
        text=True,
        capture_output=True,
        timeout=30,
    )
    assert produced.returncode == 0, produced.stderr
    consumed = subprocess.run(
        [KCAT, "-b", bootstrap, "-C", "-t", "cat", "-e", "-q", "-f", "%k=%s\\n"],
        text=True,
        capture_output=True,
        timeout=30,
    )
    assert consumed.returncode == 0, consumed.stderr
    assert sorted(consumed.stdout.split()) == sorted(f"k{i}=v{i}" for i in range(20))


def test_kcat_lists_metadata(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "listed", partitions=3)
    listed = subprocess.run(
        [KCAT, "-b", bootstrap, "-L", "-t", "listed"], text=True, capture_output=True, timeout=30
    )
    assert listed.returncode == 0, listed.stderr
    assert 'topic "listed" with 3 partitions' in listed.stdout


def test_kcat_below_the_log_start_resets_by_its_policy(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "trimmed")
    lines = "".join(f"{i}\n" for i in range(10))
    subprocess.run(
        [KCAT, "-b", bootstrap, "-P", "-t", "trimmed", "-p", "0"],
        input=lines,
        text=True,
        check=True,
        capture_output=True,
        timeout=30,
    )
    delete_records_before(bootstrap, "trimmed", 6)
    consumed = subprocess.run(
        [
            KCAT,
            "-b",
            bootstrap,
            "-C",
            "-t",
            "trimmed",
            "-p",
            "0",
            "-o",
            "2",
            "-e",
            "-q",
            "-X",
            "auto.offset.reset=earliest",
            "-f",
            "%o=%s\\n",
        ],
        text=True,
        capture_output=True,
        timeout=30,
    )
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.split() == ["6=6", "7=7", "8=8", "9=9"]
