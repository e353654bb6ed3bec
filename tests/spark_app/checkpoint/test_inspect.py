"""`inspect` without Spark (--no-state): a crafted checkpoint compared with a real broker."""

from __future__ import annotations

from pathlib import Path

from spark_app.checkpoint.inspect import inspect_checkpoint, render_text
from tests.spark_app.checkpoint.test_reader import make_checkpoint
from tests.spark_app.kafka_helpers import create_topic, delete_records, send_counter


def test_aged_out_offsets_predict_a_failing_restart(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 401))
    (tmp_path / "cp").mkdir()
    make_checkpoint(tmp_path / "cp", [50, 120, 150], committed=2)  # batch 2 pending from 120
    fine = inspect_checkpoint(tmp_path / "cp", bootstrap, with_state=False)
    assert not fine.restart_will_fail and fine.partitions[0].waiting == 280
    delete_records(bootstrap, 300)
    report = inspect_checkpoint(tmp_path / "cp", bootstrap, with_state=False)
    assert report.restart_will_fail and report.pending_batch == 2
    text = "\n".join(render_text(report))
    assert (
        "resumes at offset 120 of Experience-0 but Kafka's earliest is 300: a restart will "
        "fail; 180 messages are gone"
    ) in text
    assert "batch 2 was planned but not committed" in text


def test_unreachable_kafka_is_said_not_guessed(free_port: int, tmp_path: Path) -> None:
    (tmp_path / "cp").mkdir()
    make_checkpoint(tmp_path / "cp", [50], committed=1)
    report = inspect_checkpoint(
        tmp_path / "cp", f"127.0.0.1:{free_port}", with_state=False, kafka_timeout_sec=2.0
    )
    assert report.kafka_note and "did not answer" in report.kafka_note
    assert report.restart_will_fail is None and report.to_json()["restart_will_fail"] is None
    assert "resumes from: Experience-0@50" in "\n".join(render_text(report))


def test_what_a_restart_keeps_is_said(free_port: int, tmp_path: Path) -> None:
    """The settings the checkpoint pins and the partitions it reads: what a user changing a
    live job asks (query-changes and partitions-added show both on a running query)."""
    (tmp_path / "cp").mkdir()
    make_checkpoint(tmp_path / "cp", [50], committed=1)
    report = inspect_checkpoint(tmp_path / "cp", None, with_state=False)
    assert report.kept["spark.sql.shuffle.partitions"] == "1"
    assert report.to_json()["kept"] == report.kept
    text = "\n".join(render_text(report))
    assert "kept by the checkpoint, whatever a restart sets: spark.sql.shuffle.partitions 1" in text
    assert (
        "reads Experience partitions 0; a partition or subscribed topic added later is read "
        "from its earliest offset" in text
    )


def test_kept_settings_shorten_class_names_and_skip_what_is_absent() -> None:
    from spark_app.checkpoint.inspect import kept_settings

    conf = {
        "spark.sql.streaming.stateStore.providerClass": (
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
        ),
        "spark.sql.adaptive.enabled": "false",
    }
    assert kept_settings(conf) == {"state store": "RocksDBStateStoreProvider"}
