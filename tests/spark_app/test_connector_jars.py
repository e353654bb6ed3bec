"""Spark's Kafka connector as jars: the running Spark's version, fetched once, minus what Spark has.

The first test fetches from the repository the fetcher uses (Maven Central) on its first run
and reads the project's cache afterwards; the others use a local file repository or a port
nothing listens on.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.cli import run_cli
from spark_app.errors import ConnectorUnavailableError
from spark_app.runtime.connector_jars import (
    connector_jars,
    is_excluded,
    newest_served,
    served_versions,
)
from spark_app.runtime.spark_version import installed_spark_version


def metadata(artifact: str, versions: list[str]) -> str:
    listed = "".join(f"<version>{v}</version>" for v in versions)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><metadata><groupId>org.apache.spark</groupId>'
        f"<artifactId>{artifact}</artifactId><versioning><latest>4.2.0-preview5</latest>"
        f"<versions>{listed}</versions></versioning></metadata>"
    )


# As Maven Central listed them on 2026-11-24 (shortened): the connector at 4.1.3 and 4.0.4,
# its token provider not; a preview newer than any release.
LISTED = {
    "spark-sql-kafka-0-10_2.13": [
        "3.5.9",
        "4.0.0",
        "4.0.4",
        "4.1.1",
        "4.1.3",
        "4.2.0",
        "4.2.0-preview5",
        "4.10.0-preview1",
    ],
    "spark-token-provider-kafka-0-10_2.13": ["3.5.9", "4.0.0", "4.1.1", "4.2.0", "4.2.0-preview5"],
}


@pytest.fixture
def file_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository holding only the two artifacts' version lists, and an empty cache."""
    root = tmp_path / "repo"
    for artifact, versions in LISTED.items():
        folder = root / "org/apache/spark" / artifact
        folder.mkdir(parents=True)
        (folder / "maven-metadata.xml").write_text(metadata(artifact, versions))
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_MAVEN_REPO", root.as_uri())
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    return root


def test_the_running_sparks_connector_comes_with_its_dependencies_and_without_spark() -> None:
    version = installed_spark_version()
    names = sorted(jar.name for jar in connector_jars(version, progress=False))
    assert f"spark-sql-kafka-0-10_2.13-{version}.jar" in names
    assert f"spark-token-provider-kafka-0-10_2.13-{version}.jar" in names
    assert any(n.startswith("kafka-clients-3.") for n in names), names
    assert any(n.startswith("commons-pool2-") for n in names), names
    # What Spark's MavenUtils leaves out, and what PySpark ships already, is not handed over.
    assert not [
        n
        for n in names
        if n.startswith(("spark-sql_", "spark-core_", "spark-tags_", "scala-library"))
    ], names
    assert not [n for n in names if n.startswith(("hadoop-client", "slf4j-api"))], names


def test_spark_modules_and_scala_library_are_excluded_as_spark_does() -> None:
    assert all(
        is_excluded(Path(n))
        for n in (
            "spark-sql_2.13-4.2.0.jar",
            "spark-core_2.13-4.2.0.jar",
            "spark-tags_2.13-4.2.0.jar",
            "scala-library-2.13.18.jar",
        )
    )
    assert not any(
        is_excluded(Path(n))
        for n in (
            "spark-sql-kafka-0-10_2.13-4.2.0.jar",
            "spark-token-provider-kafka-0-10_2.13-4.2.0.jar",
            "kafka-clients-3.9.2.jar",
        )
    )


def test_served_means_the_connector_and_its_token_provider_and_no_preview(
    file_repository: Path,
) -> None:
    served = served_versions()
    assert served == ["3.5.9", "4.0.0", "4.1.1", "4.2.0"]
    assert newest_served(served) == "4.2.0"


def test_a_spark_without_a_served_connector_names_the_newest_served(file_repository: Path) -> None:
    with pytest.raises(ConnectorUnavailableError) as refused:
        connector_jars("4.1.3", progress=False)  # the connector is listed, its dependency not
    line = str(refused.value)
    assert "\n" not in line
    assert "does not serve Spark's Kafka connector for the running Spark 4.1.3" in line
    assert "the newest it serves is 4.2.0 (on the 4.1 line: 4.1.1)" in line
    assert "`pyspark[sql]==4.2.0`" in line and "`--offline`" in line


def test_an_unreachable_repository_fails_fast_in_one_line(
    embedded_broker,
    tmp_path: Path,
    free_port: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_MAVEN_REPO", f"http://127.0.0.1:{free_port}/maven2/")
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    started = time.monotonic()
    code = run_cli(
        [
            "--source",
            "spark-kafka",
            "--bootstrap-servers",
            embedded_broker.bootstrap_servers,
            "--checkpoint-dir",
            str(tmp_path / "cp"),
            "--log-dir",
            str(tmp_path / "log"),
        ]
    )
    took = time.monotonic() - started
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("spark_app:")]
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(
        "spark_app: KAFKA_CONNECTOR_UNAVAILABLE: Spark's Kafka connector: "
        "cannot fetch org.apache.spark:spark-sql-kafka-0-10_2.13:"
    )
    assert "cannot be reached" in lines[0] and "`--offline`" in lines[0]
    assert took < 30, f"took {took:.1f} s"


@pytest.mark.spark
@pytest.mark.parametrize("master", ["local[2]", "local-cluster[2,1,1024]"])
def test_the_app_runs_on_the_connector(embedded_broker, tmp_path: Path, master: str) -> None:
    """`python -m spark_app --source spark-kafka`: on local-cluster the executors are other
    JVMs, so this also shows the jars reach them (spark.jars, not the driver's class path)."""
    from scenarios.checker.verify import verify_file
    from spark_app.settings import SparkAppSettings
    from tests.spark_app.app_process import AppProcess, wait_until
    from tests.spark_app.kafka_helpers import create_topic, send_counter

    create_topic(embedded_broker.bootstrap_servers)
    send_counter(embedded_broker.bootstrap_servers, range(1, 6))
    settings = SparkAppSettings(
        bootstrap_servers=embedded_broker.bootstrap_servers,
        source="spark-kafka",
        master=master,
        trigger_sec=0.5,
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"),
        log_dir=tmp_path / "log",
    )
    output = tmp_path / "log" / "streaming-output.log"
    with AppProcess(tmp_path, settings.to_argv()) as app:
        wait_until(
            lambda: output.exists() and verify_file(output).highest == 5, 600, "value 5", app
        )
        assert app.terminate() == 0, app.output_tail()
    report = verify_file(output)
    assert report.final_count == 5 and not report.duplicated and not report.missing
    assert (tmp_path / "checkpoints" / "offsets" / "0").read_text().splitlines()[
        -1
    ] == '{"Experience":{"0":5}}'
