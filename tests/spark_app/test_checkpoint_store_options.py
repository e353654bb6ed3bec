"""`--checkpoint-store` on the Spark app: what Spark is given, and one line for each mistake."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.cli import main_parser, settings_from_args
from spark_app.errors import CheckpointStoreError
from spark_app.runtime.checkpoint_store import check_store
from spark_app.runtime.session_plan import _with_jars
from spark_app.settings import SparkAppSettings


def _settings(*argv: str) -> SparkAppSettings:
    return settings_from_args(main_parser().parse_args(list(argv)))


def test_local_stays_the_default_and_is_the_folder_itself() -> None:
    place = _settings().checkpoint
    assert place == CheckpointPlace() and place.is_local
    assert place.location == str(Path("checkpoints").resolve())


def test_a_store_gets_the_folder_as_a_path_on_it() -> None:
    place = _settings("--checkpoint-store", "hdfs", "--checkpoint-dir", "runs/cp").checkpoint
    assert place.location == "hdfs://127.0.0.1:8020/runs/cp"
    assert place.store_url == "hdfs://127.0.0.1:8020" and place.url is None  # the default, unsaid
    place = _settings(
        "--checkpoint-store", "s3", "--checkpoint-store-url", "http://h:9001"
    ).checkpoint
    assert place.location == "s3a://checkpoint-experience/checkpoints"


def test_an_unknown_store_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main_parser().parse_args(["--checkpoint-store", "gcs"])
    assert "invalid choice: 'gcs'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--checkpoint-store-url", "hdfs://h:1"], "needs --checkpoint-store hdfs or s3"),
        (
            ["--checkpoint-store", "hdfs", "--checkpoint-store-url", "http://h:1"],
            "not an hdfs store URL",
        ),
        (
            ["--checkpoint-store", "s3", "--checkpoint-store-url", "http://h:1/a/b"],
            "at most a bucket",
        ),
    ],
)
def test_a_wrong_url_is_one_line(argv: list[str], says: str) -> None:
    with pytest.raises(CheckpointStoreError, match=says) as error:
        _settings(*argv)
    assert str(error.value).startswith("CHECKPOINT_STORE: ") and "\n" not in str(error.value)


def test_a_store_that_does_not_answer_says_how_to_start_one() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = _settings(
        "--checkpoint-store", "hdfs", "--checkpoint-store-url", f"hdfs://127.0.0.1:{port}"
    )
    with pytest.raises(
        CheckpointStoreError, match=rf"python -m checkpoint_stores hdfs --port {port}"
    ):
        check_store(settings.checkpoint)
    check_store(_settings().checkpoint)  # local: nothing to reach


def test_the_connector_and_the_store_share_spark_jars() -> None:
    merged = _with_jars({"spark.jars": "/a.jar"}, {"spark.jars": "/b.jar", "spark.hadoop.x": "1"})
    assert merged == {"spark.jars": "/a.jar,/b.jar", "spark.hadoop.x": "1"}
    assert _with_jars({}, {}) == {}


def test_a_checkpoint_dir_uri_sets_the_store_as_a_user_writes_it() -> None:
    place = _settings("--checkpoint-dir", "hdfs://nn:8021/team/cp").checkpoint
    assert (place.kind, place.location) == ("hdfs", "hdfs://nn:8021/team/cp")
    place = _settings(
        "--checkpoint-dir", "s3a://mine/team/cp", "--checkpoint-store-url", "http://minio:9000"
    ).checkpoint
    assert (place.kind, place.location) == ("s3", "s3a://mine/team/cp")
    assert place.url == "http://minio:9000/mine"
    # Before, the URI became a local folder named 'hdfs:' and the query ran there, silently.
    assert _settings(
        "--checkpoint-store", "hdfs", "--checkpoint-dir", "hdfs://nn/cp"
    ).checkpoint.folder == Path("cp")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--checkpoint-dir", "hdfs://nn:8020/cp", "--checkpoint-store", "s3"],
            "is on hdfs, but --checkpoint-store says s3",
        ),
        (
            ["--checkpoint-dir", "gs://b/cp"],
            "takes a folder here, hdfs://NAMENODE[:PORT]/PATH or s3a://BUCKET/PATH",
        ),
    ],
)
def test_a_checkpoint_dir_uri_that_does_not_fit_is_one_line(argv: list[str], says: str) -> None:
    with pytest.raises(CheckpointStoreError, match=re.escape(says)) as error:
        _settings(*argv)
    assert str(error.value).startswith("CHECKPOINT_STORE: ") and "\n" not in str(error.value)
