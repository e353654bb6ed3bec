"""Apache Kafka itself, started by the project (`--kafka apache`): what a user would check.

A real broker from Maven Central's jars (fetched once into the cache; CI fetches them before the
tests), on a free port, with our settings: it serves kafka-python, deletes an expired segment
on our retention check interval, and leaves no JVM behind however its parent is stopped.
Bad input (busy port, a folder of another cluster) is one line and starts no JVM.
"""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

from kafka_app.apache.cluster import ApacheKafka
from kafka_app.apache.storage import CLUSTER_ID_FILE
from kafka_app.broker.settings import BrokerSettings
from tests.kafka_app.apache.helpers import (
    cli_process,
    free_port,
    kafka_jvms,
    stdout_lines,
    stop_with,
    wait_for_line,
    wait_gone,
)
from tests.kafka_app.broker.broker_helpers import quick_broker_settings


def create_topic(bootstrap: str, name: str, configs: dict[str, str] | None = None) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(name, 1, 1, topic_configs=configs or {})])
    finally:
        admin.close()


@pytest.fixture(scope="module")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApacheKafka]:
    root = tmp_path_factory.mktemp("apache")
    settings = quick_broker_settings(free_port(), root / "kafka-data", log_dir=root / "log")
    with ApacheKafka(settings, progress=False) as running:
        yield running
    assert kafka_jvms(root) == []


@pytest.mark.e2e
def test_serves_kafka_python_and_logs_to_its_file(kafka: ApacheKafka) -> None:
    create_topic(kafka.bootstrap_servers, "roundtrip")
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap_servers, acks="all")
    for n in range(1, 6):
        producer.send("roundtrip", key=str(n).encode(), value=str(n).encode()).get(30)
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers, consumer_timeout_ms=15_000)
    consumer.assign([TopicPartition("roundtrip", 0)])
    consumer.seek_to_beginning()
    values = [m.value for m, _ in zip(consumer, range(5))]
    consumer.close()
    assert values == [b"1", b"2", b"3", b"4", b"5"]
    log = kafka.log_file().read_text()
    # Kafka's POMs bring no SLF4J binding: without ours, this line would never be written.
    assert "Kafka Server started" in log and "Transitioning from RECOVERY to RUNNING" in log


@pytest.mark.e2e
def test_retention_deletes_an_expired_segment(kafka: ApacheKafka) -> None:
    create_topic(kafka.bootstrap_servers, "expiring", {"retention.ms": "1000", "segment.ms": "200"})
    producer = KafkaProducer(bootstrap_servers=kafka.bootstrap_servers, acks="all")
    producer.send("expiring", b"old").get(30)
    time.sleep(0.5)  # past segment.ms, so the next append rolls a new segment
    producer.send("expiring", b"new").get(30)
    producer.close()
    first_segment = kafka.data_dir / "expiring-0" / "00000000000000000000.log"
    consumer = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers)
    part = TopicPartition("expiring", 0)
    deadline = time.monotonic() + 30
    try:
        while consumer.beginning_offsets([part])[part] == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        start = consumer.beginning_offsets([part])[part]
    finally:
        consumer.close()
    # Retention checks every 1 s from the start (our settings, not Kafka's 5 min after 30 s).
    assert start >= 1 and time.monotonic() < deadline
    assert not first_segment.exists()  # renamed to .deleted, removed after file.delete.delay.ms


@pytest.mark.e2e
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_stops_kafka_and_its_jvm(signum: int, tmp_path: Path) -> None:
    with cli_process(
        [
            "broker",
            "--kafka",
            "apache",
            "--port",
            str(free_port()),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        tmp_path,
    ) as cli:
        wait_for_line(cli, "Apache Kafka 4", timeout=180)
        stop_with(cli, signum, tmp_path)
        time.sleep(0.3)  # the reader thread takes the last line
        assert "Apache Kafka stopped\n" in stdout_lines(cli)


@pytest.mark.e2e
def test_kill_9_of_the_parent_takes_the_jvm_along(tmp_path: Path) -> None:
    with cli_process(
        [
            "broker",
            "--kafka",
            "apache",
            "--port",
            str(free_port()),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        tmp_path,
    ) as cli:
        wait_for_line(cli, "Apache Kafka 4", timeout=180)
        jvms = kafka_jvms(tmp_path)
        assert len(jvms) == 1
        cli.kill()  # no handler runs: only PR_SET_PDEATHSIG can stop the JVM now
        cli.wait()
        assert wait_gone(jvms, 10) == []


def run_to_end(argv: list[str], cwd: Path, timeout: float = 120) -> tuple[int, str]:
    with cli_process(argv, cwd) as cli:
        _, err = cli.communicate(timeout=timeout)
    return cli.returncode, err


def test_busy_port_is_one_line_and_starts_nothing(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, err = run_to_end(
            [
                "broker",
                "--kafka",
                "apache",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path / "data"),
            ],
            tmp_path,
        )
    assert code == 1
    assert (
        err.strip()
        == f"error: port {port} on 127.0.0.1 is in use; stop what uses it or give another --port"
    )
    assert kafka_jvms(tmp_path) == []


def test_folder_of_another_cluster_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / CLUSTER_ID_FILE).write_text("MkU3OEVBNTcwNTJENDM2Qg\n")
    (data / "meta.properties").write_text(
        "version=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\nnode.id=1\n"
    )
    code, err = run_to_end(
        ["broker", "--kafka", "apache", "--port", str(free_port()), "--data-dir", str(data)],
        tmp_path,
    )
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "was formatted by another Kafka cluster (cluster.id AAAAAAAAAAAAAAAAAAAAAA" in err
    assert "give another --data-dir" in err and kafka_jvms(tmp_path) == []


def test_embedded_broker_data_is_not_taken_for_kafkas(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "Experience-0").mkdir(parents=True)
    code, err = run_to_end(
        ["broker", "--kafka", "apache", "--port", str(free_port()), "--data-dir", str(data)],
        tmp_path,
    )
    assert code == 1 and "holds Experience-0, not Kafka's data (the embedded broker's?)" in err


@pytest.mark.e2e
def test_jvm_dying_while_starting_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:  # the second listener's port: only Kafka itself finds it busy
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        second = busy.getsockname()[1]
        code, err = run_to_end(
            [
                "broker",
                "--kafka",
                "apache",
                "--port",
                str(free_port()),
                "--data-dir",
                str(tmp_path / "data"),
                "--second-listener",
                f"{second}=127.0.0.1:{free_port()}",
            ],
            tmp_path,
            240,
        )
    assert code == 1 and len(err.strip().splitlines()[-1:]) == 1
    assert f"Kafka node 1 cannot listen on 127.0.0.1:{second}: the port is in use" in err
    assert kafka_jvms(tmp_path) == []


@pytest.mark.e2e
def test_unserved_version_names_versions_to_try(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, err = run_to_end(
        [
            "broker",
            "--kafka",
            "apache",
            "--kafka-version",
            "4.9.9",
            "--port",
            str(free_port()),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        tmp_path,
    )
    line = err.strip().splitlines()[-1]
    assert code == 1 and line.startswith(
        "error: cannot fetch org.apache.kafka:kafka_2.13:4.9.9: not served by Maven Central"
    )
    assert "try 4.1.2" in line and "`--offline` runs the embedded broker" in line


@pytest.mark.e2e
def test_producer_app_starts_apache_kafka_when_told(tmp_path: Path) -> None:
    with cli_process(
        [
            "--kafka",
            "apache",
            "--port",
            str(free_port()),
            "--data-dir",
            str(tmp_path / "data"),
            "--count",
            "3",
            "--interval-sec",
            "0.2",
            "--log-dir",
            str(tmp_path / "log"),
        ],
        tmp_path,
    ) as cli:
        out, err = cli.communicate(timeout=240)
    assert cli.returncode == 0, err
    assert "(Apache Kafka 4.1.2)" in out and (tmp_path / "log" / "kafka-server.log").exists()
    assert "key=3" in out or "3" in out.splitlines()[-1]
    assert kafka_jvms(tmp_path) == []


@pytest.mark.e2e
def test_producer_app_stops_apache_kafka_on_sighup(tmp_path: Path) -> None:
    """A closed terminal (SIGHUP) stops the app like Ctrl-C: Kafka's JVM is stopped, exit 0."""
    with cli_process(
        [
            "--kafka",
            "apache",
            "--port",
            str(free_port()),
            "--data-dir",
            str(tmp_path / "data"),
            "--log-dir",
            str(tmp_path / "log"),
        ],
        tmp_path,
    ) as cli:
        deadline = time.monotonic() + 180
        while not any(line.startswith("Experience [") for line in stdout_lines(cli)):
            assert cli.poll() is None and time.monotonic() < deadline, "".join(stdout_lines(cli))
            time.sleep(0.3)
        stop_with(cli, signal.SIGHUP, tmp_path)


@pytest.mark.e2e
def test_first_retention_check_waits_the_initial_delay(tmp_path: Path) -> None:
    """`--retention-initial-delay-sec` is Kafka's log.initial.task.delay.ms: records already past
    retention stay readable until the delay (counted from the JVM's start) has passed. 15 s, half
    Kafka's own 30 s: were the setting lost, retention would run after 30 s; were it ignored,
    as soon as the records are stored (a few seconds after the start); either fails the test."""
    delay, kafkas_own = 15.0, 30.0
    settings = BrokerSettings(
        port=free_port(),
        data_dir=tmp_path / "data",
        log_dir=tmp_path / "log",
        retention_check_sec=1,
        retention_initial_delay_sec=delay,
    )
    started = time.monotonic()
    with ApacheKafka(settings, progress=False) as kafka:
        create_topic(
            kafka.bootstrap_servers, "delayed", {"retention.ms": "1000", "segment.ms": "100"}
        )
        producer = KafkaProducer(bootstrap_servers=kafka.bootstrap_servers)
        an_hour_ago = int(time.time() * 1000) - 3_600_000
        for i in range(3):
            producer.send("delayed", b"old", timestamp_ms=an_hour_ago + i).get(30)
        producer.send("delayed", b"new").get(30)
        producer.close()
        consumer = KafkaConsumer(bootstrap_servers=kafka.bootstrap_servers)
        part = TopicPartition("delayed", 0)
        try:
            while (
                consumer.beginning_offsets([part])[part] == 0
                and time.monotonic() - started < delay + 120
            ):
                time.sleep(0.2)
            moved_after = time.monotonic() - started
            assert consumer.beginning_offsets([part])[part] >= 3
        finally:
            consumer.close()
    assert delay <= moved_after < kafkas_own, (
        f"retention ran {moved_after:.1f} s after the start, "
        f"not between the delay and Kafka's own {kafkas_own:g} s"
    )
