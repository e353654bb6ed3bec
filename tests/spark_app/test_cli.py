"""The command line's promises that need no Spark: one clear line and an exit code per failure,
error unwrapping, the per-batch console line and the negative-key policy."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from spark_app.cli import main_parser, read_parser, run_cli, settings_from_args
from spark_app.errors import (
    CouldNotReadOffsetRangeError,
    DataLossError,
    JavaMissingError,
    KafkaUnreachableError,
    unwrap,
)
from spark_app.lines.batch_line import batch_line_from_progress
from spark_app.lines.output_line import OutputRow
from spark_app.offsets import TopicPartition
from spark_app.query.negative_key import NegativeKeyPolicy
from spark_app.runtime.session import check_java
from spark_app.source.data_loss import could_not_read
from tests.spark_app.kafka_helpers import create_topic


def test_defaults_follow_the_contract() -> None:
    s = settings_from_args(main_parser().parse_args([]))
    assert (s.bootstrap_servers, s.topic, str(s.checkpoint.folder), str(s.log_dir)) == (
        "127.0.0.1:9092",
        "Experience",
        "checkpoints",
        "log",
    )
    assert (
        s.trigger_sec,
        s.starting_offsets,
        s.fail_on_data_loss,
        s.max_offsets_per_trigger,
        s.sink,
        s.on_negative_key,
    ) == (1.0, "earliest", True, None, "exactly-once", "crash-once")


def test_unreachable_kafka_is_one_line_and_exit_1(
    free_port: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An empty jar cache, as a fresh clone's: Kafka is judged before the connector is fetched.
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "jar-cache"))
    code = run_cli(
        [
            "--bootstrap-servers",
            f"127.0.0.1:{free_port}",
            "--checkpoint-dir",
            str(tmp_path / "cp"),
            "--log-dir",
            str(tmp_path / "log"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert not (tmp_path / "jar-cache" / "jars").exists()
    assert code == 1 and len(err) == 1
    assert f"127.0.0.1:{free_port}" in err[0] and "python -m kafka_app" in err[0]


def test_bad_starting_offsets_exit_2(
    embedded_broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    create_topic(embedded_broker.bootstrap_servers)
    code = run_cli(
        [
            "--bootstrap-servers",
            embedded_broker.bootstrap_servers,
            "--checkpoint-dir",
            str(tmp_path / "cp"),
            "--log-dir",
            str(tmp_path / "log"),
            "--starting-offsets",
            "smallest-ish",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "Expected e.g. {" in err and "--starting-offsets" in err  # Spark's words, then ours


def test_old_java_names_the_debian_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\necho 'openjdk version \"11.0.22\" 2024-01-16' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaMissingError, match="Java 11.*openjdk-17-jre-headless"):
        check_java()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(JavaMissingError, match="not found.*openjdk-17-jre-headless"):
        check_java()


def test_unwrap_finds_our_error_inside_a_spark_traceback() -> None:
    ours = could_not_read(TopicPartition("Experience", 0), 20, 30, "g", 30)
    wrapped = RuntimeError(
        "[PYTHON_EXCEPTION] ... Traceback (most recent call last):\n"
        f'  File "x.py", line 1\nspark_app.errors.CouldNotReadOffsetRangeError: '
        f"{ours}\n\tat org.apache.spark.Foo(Foo.scala:1)"
    )
    found = unwrap(wrapped)
    assert isinstance(found, CouldNotReadOffsetRangeError) and isinstance(found, DataLossError)
    assert str(found) == str(ours)
    assert unwrap(RuntimeError("nothing of ours")) is None
    assert isinstance(unwrap(KafkaUnreachableError.at("h:1")), KafkaUnreachableError)


def test_batch_line_from_a_progress_report() -> None:
    progress = {
        "batchId": 12,
        "numInputRows": 3,
        "durationMs": {"triggerExecution": 412},
        "sources": [
            {"startOffset": '{"Experience":{"0":120}}', "endOffset": {"Experience": {"0": 123}}}
        ],
    }
    line = batch_line_from_progress(progress, 123)
    assert line.plain() == "batch 12: Experience-0 [120, 123) rows=3 count=123 took 412 ms"


def test_negative_key_policies(tmp_path: Path) -> None:
    rows = [OutputRow("Experience", "4", "4", 4), OutputRow("Experience", "-5", "5", 5)]
    assert NegativeKeyPolicy("ignore", tmp_path, None).first_to_crash_on(rows) is None
    once = NegativeKeyPolicy("crash-once", tmp_path, None)
    assert once.first_to_crash_on(rows) == 1
    (tmp_path / "crashed-on.txt").write_text("Experience:5\n")
    assert once.first_to_crash_on(rows) is None
    assert NegativeKeyPolicy("crash-always", tmp_path, None).first_to_crash_on(rows) == 1


def test_damaged_checkpoint_is_one_line_before_spark_starts(
    tmp_path: Path, free_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cp" / "offsets").mkdir(parents=True)
    (tmp_path / "cp" / "offsets" / "0").write_text("not a spark file")
    code = run_cli(
        [
            "--bootstrap-servers",
            f"127.0.0.1:{free_port}",
            "--checkpoint-dir",
            str(tmp_path / "cp"),
            "--log-dir",
            str(tmp_path / "log"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith("spark_app: CHECKPOINT_UNUSABLE") and "delete the checkpoint" in err[0]


def test_spark_failures_are_explained_from_their_message_not_their_trace() -> None:
    from spark_app.failures import explain_failure
    from spark_app.settings import SparkAppSettings

    schema = RuntimeError(
        "[STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE] new schema\n\tat a.B(B.scala:1)"
    )
    assert explain_failure(schema, SparkAppSettings()).token.startswith("CHECKPOINT_UNUSABLE")
    other = RuntimeError(
        "boom\n\tat org.apache.spark.sql.execution.streaming.checkpointing.X(X.scala:1)"
    )
    assert explain_failure(other, SparkAppSettings()).token == "STREAM_FAILED"


def test_upgrade_options_default_to_v1_and_reject_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    s = settings_from_args(main_parser().parse_args([]))
    assert (s.output_format, s.state_schema) == ("v1", "v1")
    s = settings_from_args(
        main_parser().parse_args(["--output-format", "v2", "--state-schema", "v2"])
    )
    assert (s.output_format, s.state_schema) == ("v2", "v2")
    with pytest.raises(SystemExit) as exit_:
        main_parser().parse_args(["--state-schema", "v3"])
    assert exit_.value.code == 2 and "invalid choice: 'v3'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--trigger-sec", "nan"], "positive, finite number of seconds, got nan"),
        (["--trigger-sec", "inf"], "positive, finite number of seconds, got inf"),
        (["--trigger-sec", "-1"], "positive, finite number of seconds, got -1"),
        (["--trigger-sec", "soon"], "expected a number of seconds, got 'soon'"),
        (["--bootstrap-servers", ":x"], "expected HOST:PORT[,HOST:PORT...]"),
        (["--bootstrap-servers", "a:1,b"], "expected HOST:PORT[,HOST:PORT...]"),
        (["--shuffle-partitions", "-3"], "expected a positive number, got -3"),
        (["--min-batches-to-retain", "0"], "expected a positive number, got 0"),
        (["--extra-space-ratio", "-0.1"], "expected 0 or a positive, finite number, got -0.1"),
        (["--extra-space-ratio", "nan"], "expected 0 or a positive, finite number, got nan"),
        (["--extra-space-ratio", "lots"], "expected a number such as 0.3, got 'lots'"),
    ],
)
def test_bad_numbers_and_addresses_are_one_line_before_spark(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_cli(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_info.value.code == 2 and message in err[-1]
    assert not any("Traceback" in line for line in err)


def test_several_bootstrap_servers_are_accepted() -> None:
    args = main_parser().parse_args(["--bootstrap-servers", "127.0.0.1:9092,localhost:9093"])
    assert settings_from_args(args).bootstrap_servers == "127.0.0.1:9092,localhost:9093"


def test_ctrl_c_before_the_app_runs_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while Python imports pyspark (before the app takes SIGINT over): no traceback."""
    import spark_app.cli as cli

    def interrupted(argv: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run_app", interrupted)
    assert run_cli([]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "spark_app: stopped (Ctrl-C)\n"


def test_read_takes_the_apps_kafka_options_and_refuses_a_bad_one_before_spark(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = read_parser().parse_args(
        [
            "--bootstrap-servers",
            "127.0.0.1:9092",
            "--topic",
            "T",
            "--source-option",
            "fetchOffset.numRetries=5",
        ]
    )
    assert (args.bootstrap_servers, args.topic, args.source_options) == (
        "127.0.0.1:9092",
        "T",
        ["fetchOffset.numRetries=5"],
    )
    with pytest.raises(SystemExit) as exited:
        run_cli(["read", "--bootstrap-servers", "nohost"])
    assert exited.value.code == 2
    assert "expected HOST:PORT" in capsys.readouterr().err
