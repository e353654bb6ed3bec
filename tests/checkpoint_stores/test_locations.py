"""Where a checkpoint lives on each store, and the settings Spark gets: pure, no store started."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace, default_url, store_address
from checkpoint_stores.cli import parse_ready_line
from checkpoint_stores.locations import bucket_of, checkpoint_uri


def test_default_urls_are_the_usual_ports_on_loopback() -> None:
    assert default_url("hdfs") == "hdfs://127.0.0.1:8020"
    assert default_url("s3") == "http://127.0.0.1:9000"


@pytest.mark.parametrize(
    ("store", "url", "folder", "expected"),
    [
        ("hdfs", "hdfs://127.0.0.1:8020", Path("checkpoints"), "hdfs://127.0.0.1:8020/checkpoints"),
        (
            "hdfs",
            "hdfs://nn:9000/",
            Path("/runs/a/checkpoints"),
            "hdfs://nn:9000/runs/a/checkpoints",
        ),
        (
            "s3",
            "http://127.0.0.1:9000",
            Path("checkpoints"),
            "s3a://checkpoint-experience/checkpoints",
        ),
        ("s3", "http://minio:9000/mine", Path("/x/cp"), "s3a://mine/x/cp"),
        ("s3", None, Path("cp"), "s3a://checkpoint-experience/cp"),
    ],
)
def test_the_checkpoint_folder_keeps_its_path_on_the_store(
    store: str, url: str | None, folder: Path, expected: str
) -> None:
    assert CheckpointPlace(store, folder, url).location == expected  # type: ignore[arg-type]


def test_a_local_checkpoint_is_the_absolute_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert CheckpointPlace("local", Path("checkpoints")).location == str(tmp_path / "checkpoints")


@pytest.mark.parametrize(
    ("store", "url", "says"),
    [
        ("hdfs", "http://127.0.0.1:8020", "is not an hdfs store URL like hdfs://127.0.0.1:8020"),
        ("hdfs", "hdfs://127.0.0.1", "is not an hdfs store URL"),
        ("hdfs", "hdfs://127.0.0.1:8020/cp", "names the NameNode only"),
        ("s3", "s3a://bucket", "is not an s3 store URL like http://127.0.0.1:9000"),
        ("s3", "http://host:notaport", "is not an s3 store URL"),
    ],
)
def test_a_wrong_url_is_one_line_saying_what_one_looks_like(
    store: str, url: str, says: str
) -> None:
    with pytest.raises(ValueError, match=says) as error:
        store_address(store, url)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


def test_an_s3_url_names_at_most_a_bucket() -> None:
    assert bucket_of("http://h:9000") == "checkpoint-experience"
    assert bucket_of("http://h:9000/b/") == "b"
    with pytest.raises(ValueError, match="at most a bucket"):
        bucket_of("http://h:9000/b/folder")


def test_s3a_is_pointed_at_the_endpoint_path_style() -> None:
    conf = CheckpointPlace("s3", url="http://127.0.0.1:9123/mine").hadoop_conf()
    assert conf["spark.hadoop.fs.s3a.endpoint"] == "http://127.0.0.1:9123"
    assert conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
    assert conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] == "false"
    assert CheckpointPlace("hdfs").hadoop_conf() == {} and CheckpointPlace().hadoop_conf() == {}


def test_the_ready_line_is_read_back() -> None:
    text = (
        "fetching…\nhdfs store ready at hdfs://127.0.0.1:8020 in 8.8 s (JVM pid 7, data in "
        "/x); Ctrl-C stops it and removes the data\n"
    )
    assert parse_ready_line(text) == ("hdfs", "hdfs://127.0.0.1:8020", 8.8)
    assert parse_ready_line("hdfs store starting") is None


def test_a_scenario_that_reads_its_checkpoint_folder_is_skipped_on_a_store() -> None:
    from scenarios.engine.settings import RunSettings
    from scenarios.engine.stage.store import store_unavailable
    from scenarios.registry import find_scenarios

    local_only, endless = find_scenarios(["query-changes", "endless-retention"])
    on_hdfs = RunSettings(checkpoint_store="hdfs")
    assert store_unavailable(RunSettings(), local_only.checkpoint_stores) is None
    assert "works on a local folder only so far, not on hdfs" in (
        store_unavailable(on_hdfs, local_only.checkpoint_stores) or ""
    )
    assert store_unavailable(on_hdfs, endless.checkpoint_stores) is None


def test_a_data_folder_with_other_files_is_refused_not_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkpoint_stores.cli import check_data_dir, main

    (tmp_path / "notes.txt").write_text("mine")
    assert main(["s3", "--data-dir", str(tmp_path), "--log-dir", str(tmp_path / "log")]) == 2
    assert "holds notes.txt, which the store did not write" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"
    (tmp_path / "notes.txt").unlink()
    (tmp_path / "blobs").mkdir()
    check_data_dir(tmp_path)  # a killed store's leftovers: fine, removed at the start
    check_data_dir(tmp_path / "new")


@pytest.mark.parametrize(
    ("uri", "store_url", "expected"),
    [
        ("checkpoints", None, None),
        ("/abs/cp", None, None),
        ("file:///abs/cp", None, ("local", None, Path("/abs/cp"))),
        ("hdfs://nn:8021/team/cp", None, ("hdfs", "hdfs://nn:8021", Path("team/cp"))),
        ("hdfs://nn/team/cp/", None, ("hdfs", "hdfs://nn:8020", Path("team/cp"))),
        ("hdfs://nn:8021/cp", "hdfs://nn:8021", ("hdfs", "hdfs://nn:8021", Path("cp"))),
        ("s3a://mine/team/cp", None, ("s3", "http://127.0.0.1:9000/mine", Path("team/cp"))),
        ("s3a://mine/cp", "https://minio:9443/", ("s3", "https://minio:9443/mine", Path("cp"))),
        ("s3a://mine/cp", "http://minio:9000/mine", ("s3", "http://minio:9000/mine", Path("cp"))),
    ],
)
def test_a_checkpoint_uri_names_its_store_and_folder(
    uri: str, store_url: str | None, expected: object
) -> None:
    found = checkpoint_uri(uri, store_url)
    assert found == expected
    if found is not None and found[0] != "local":
        place = CheckpointPlace.from_options(uri, url=store_url)
        assert (place.kind, place.url, place.folder) == found
        assert place.location == uri.rstrip("/").replace("nn/", "nn:8020/")


@pytest.mark.parametrize(
    ("uri", "store_url", "says"),
    [
        ("s3://mine/cp", None, "Hadoop's S3 client is s3a://; write s3a://mine/cp"),
        ("gs://mine/cp", None, "--checkpoint-dir takes a folder here, hdfs://"),
        ("hdfs://nn:8020/", None, "names no NameNode or no folder"),
        ("s3a://mine", None, "names no bucket or no folder"),
        ("hdfs://nn:8020/cp", "hdfs://other:8020", "name two NameNodes"),
        ("s3a://mine/cp", "http://minio:9000/theirs", "name two buckets"),
        ("s3a://mine/cp", "hdfs://nn:8020", "is not an s3 store URL"),
    ],
)
def test_a_checkpoint_uri_we_cannot_take_is_one_line(
    uri: str, store_url: str | None, says: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(says)) as error:
        checkpoint_uri(uri, store_url)
    assert "\n" not in str(error.value)


# --- the one value: a checkpoint's place --------------------------------------------------------


def test_a_place_decides_its_stores_url_in_one_place() -> None:
    assert CheckpointPlace().store_url is None  # a local folder has no store
    for store in ("hdfs", "s3"):
        unsaid = CheckpointPlace(store)  # type: ignore[arg-type]
        assert unsaid.url is None and unsaid.store_url == default_url(store)  # type: ignore[arg-type]
        assert unsaid.address == ("127.0.0.1", int(default_url(store).rsplit(":", 1)[1]))  # type: ignore[arg-type]
    given = CheckpointPlace("hdfs", Path("cp"), "hdfs://nn:9000")
    assert given.store_url == "hdfs://nn:9000" and given.location == "hdfs://nn:9000/cp"


@pytest.mark.parametrize(
    ("kind", "url", "says"),
    [
        ("local", "hdfs://h:1", "--checkpoint-store-url needs --checkpoint-store hdfs or s3"),
        ("hdfs", "http://h:1", "is not an hdfs store URL"),
        ("s3", "http://h:1/a/b", "at most a bucket"),
    ],
)
def test_a_place_that_cannot_be_is_refused_as_it_is_made(kind: str, url: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        CheckpointPlace(kind, Path("cp"), url)  # type: ignore[arg-type]


def test_the_options_make_a_place_from_a_folder_or_a_uri() -> None:
    assert CheckpointPlace.from_options("runs/cp") == CheckpointPlace(folder=Path("runs/cp"))
    assert CheckpointPlace.from_options("cp", "s3") == CheckpointPlace("s3", Path("cp"))
    assert CheckpointPlace.from_options("hdfs://nn/cp", "hdfs") == CheckpointPlace(
        "hdfs", Path("cp"), "hdfs://nn:8020"
    )
    with pytest.raises(ValueError, match="is on hdfs, but --checkpoint-store says s3"):
        CheckpointPlace.from_options("hdfs://nn/cp", "s3")
