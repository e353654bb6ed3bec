"""The prefetch command both apps offer (`python -m kafka_app.apache.jars`,
`python -m spark_app.runtime.connector_jars`): one closing line and exit 0 when the jars are
there, one `error: …` line and exit 1 when they cannot be had. The fetches are replaced by
stand-ins here; CI runs both commands for real before the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_app.apache import jars as kafka_prefetch
from maven_jars.prefetch import fetched_line, is_fetched_line
from spark_app.errors import ConnectorUnavailableError
from spark_app.runtime import connector_jars as spark_prefetch

CACHE = Path("/home/learner/.cache/checkpoint-experience/jars")


def _jars(folder: str, count: int) -> list[Path]:
    return [CACHE / folder / f"j{n}.jar" for n in range(count)]


def test_the_kafka_command_names_the_version_the_count_and_the_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        kafka_prefetch,
        "kafka_jars",
        lambda version: asked.append(version) or _jars(f"kafka-{version}", 46),
    )
    assert kafka_prefetch.main(["--kafka-version", "4.0.0"]) == 0
    assert asked == ["4.0.0"]
    assert capsys.readouterr().out == f"Kafka 4.0.0: 46 jars in {CACHE}/kafka-4.0.0\n"


def test_the_kafka_command_fetches_the_default_version_without_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(kafka_prefetch, "kafka_jars", lambda version: _jars(f"kafka-{version}", 2))
    assert kafka_prefetch.main([]) == 0
    assert capsys.readouterr().out.startswith(f"Kafka {kafka_prefetch.DEFAULT_VERSION}: 2 jars in ")


def test_a_kafka_version_that_cannot_be_fetched_is_one_error_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert kafka_prefetch.main(["--kafka-version", "9.9"]) == 1  # refused before any fetch
    shown = capsys.readouterr()
    assert shown.out == ""
    assert shown.err.startswith("error: cannot fetch org.apache.kafka:kafka_2.13:9.9: ")
    assert shown.err.count("\n") == 1


def test_the_spark_command_names_the_running_spark(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from spark_app.runtime.spark_version import installed_spark_version

    version = installed_spark_version()
    monkeypatch.setattr(spark_prefetch, "connector_jars", lambda v: _jars(f"spark-kafka-{v}", 4))
    assert spark_prefetch.main([]) == 0
    assert capsys.readouterr().out == (
        f"Spark's Kafka connector for {version}: 4 jars in {CACHE}/spark-kafka-{version}\n"
    )


def test_a_connector_that_cannot_be_had_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = ConnectorUnavailableError("Maven Central does not serve the connector")

    def unavailable(version: str) -> list[Path]:
        raise error

    monkeypatch.setattr(spark_prefetch, "connector_jars", unavailable)
    assert spark_prefetch.main([]) == 1
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err == f"error: {error}\n"


def test_an_error_the_command_does_not_own_is_not_swallowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(version: str) -> list[Path]:
        raise RuntimeError("a bug, with its traceback")

    monkeypatch.setattr(kafka_prefetch, "kafka_jars", broken)
    with pytest.raises(RuntimeError):
        kafka_prefetch.main([])


def test_the_closing_line_is_recognised_and_a_progress_line_is_not() -> None:
    # scenarios' jar prefetch shows every line of a fetch but this one (is_fetched_line).
    assert is_fetched_line(fetched_line("Kafka 4.1.2", _jars("kafka-4.1.2", 46)))
    assert is_fetched_line(fetched_line("Spark's Kafka connector for 4.2.0", _jars("x", 1)))
    # maven_jars/progress.py's lines, while and after Ivy fetches:
    assert not is_fetched_line("fetching kafka-4.1.2: 12 POM(s) read, 3 jar(s), 1.2 MB, 4 s")
    assert not is_fetched_line("fetched kafka-4.1.2: 46 new jar(s), 45.0 MB in 25 s")
