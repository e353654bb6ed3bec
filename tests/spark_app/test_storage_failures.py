"""The app's one line when the checkpoint's storage fails mid-run (storage-outage's findings):
a store that stopped answering, a full disk; and a second app on the same checkpoint
(checkpoint-moved-and-shared). Spark's words are from the scenarios' runs."""

from __future__ import annotations

from pathlib import Path

from checkpoint_stores import CheckpointPlace
from spark_app.errors import (
    CheckpointDiskFullError,
    CheckpointError,
    CheckpointSharedError,
    CheckpointStoreLostError,
    error_in_text,
    unwrap,
)
from spark_app.failures import explain_failure
from spark_app.settings import SparkAppSettings

# Spark 4.2.0 with hadoop-aws 3.5.0, 140 s after the proxy in front of s3proxy was cut.
S3_GONE = (
    "[STREAM_FAILED] Query [id = c1d7, runId = 7d72] terminated with exception: getFileStatus on "
    "s3a://checkpoint-experience/work/cp/commits/.0.c1c35f94.tmp: software.amazon.awssdk.core."
    "exception.SdkClientException: Unable to execute HTTP request: Connect to 127.0.0.1:46701 "
    "[/127.0.0.1] failed: Connection refused (SDK Attempt Count: 6):    software.amazon.awssdk."
    "core.exception.SdkClientException: Unable to execute HTTP request: Connect to 127.0.0.1:"
    "46701 [/127.0.0.1] failed: Connection refused SQLSTATE: XXKST\n"
    "java.net.ConnectException: getFileStatus on s3a://checkpoint-experience/work/cp/commits/"
    ".0.c1c35f94.tmp"
)


def _on_s3() -> SparkAppSettings:
    return SparkAppSettings(checkpoint=CheckpointPlace("s3", url="http://127.0.0.1:46701"))


def test_a_store_gone_mid_run_is_retriable_and_not_a_broken_checkpoint() -> None:
    error = explain_failure(RuntimeError(S3_GONE), _on_s3())
    assert isinstance(error, CheckpointStoreLostError) and error.retriable
    assert not isinstance(error, CheckpointError)  # "delete the folder" would be the wrong advice
    assert str(error).startswith(
        "CHECKPOINT_STORE.UNREACHABLE: getFileStatus on s3a://checkpoint-experience/work/cp/"
        "commits/.0.c1c35f94.tmp: Unable to execute HTTP request: Connect to 127.0.0.1:46701 "
        "[/127.0.0.1] failed: Connection refused (SDK Attempt Count: 6) [playground: "
    )
    assert "http://127.0.0.1:46701 stopped answering" in str(error)
    assert "start the app again once the store answers" in str(error)
    assert "delete" not in str(error)


def test_a_put_that_met_the_cut_is_quoted_the_same_way() -> None:
    """The third run met the cut writing a commit (S3A names the key, not the URI)."""
    said = (
        "[STREAM_FAILED] Query [id = a, runId = b] terminated with exception: Writing Object on "
        "work/cp/commits/.1.afcb.tmp: software.amazon.awssdk.core.exception.SdkClientException"
        ": Unable to execute HTTP request: Connect to 127.0.0.1:35353 [/127.0.0.1] failed: "
        "Connection refused (SDK Attempt Count: 6):    software.amazon.awssdk.core.exception."
        "SdkClientException: Unable to execute HTTP request SQLSTATE: XXKST\n"
        "java.net.ConnectException: Writing Object on work/cp/commits/.1.afcb.tmp\n"
        "\tat org.apache.hadoop.fs.s3a.S3AUtils.translateException(S3AUtils.java:213)"
    )
    error = explain_failure(RuntimeError(said), _on_s3())
    assert str(error).startswith(
        "CHECKPOINT_STORE.UNREACHABLE: Writing Object on work/cp/commits/.1.afcb.tmp: Unable to "
        "execute HTTP request: Connect to 127.0.0.1:35353 [/127.0.0.1] failed: Connection refused "
        "(SDK Attempt Count: 6) [playground: "
    )


def test_the_store_lost_line_round_trips() -> None:
    error = explain_failure(RuntimeError(S3_GONE), _on_s3())
    again = error_in_text(f"spark_app: {error}")
    assert type(again) is CheckpointStoreLostError and str(again) == str(error)
    assert type(unwrap(RuntimeError(f"x\nspark_app.errors.X: {error}"))) is CheckpointStoreLostError


def test_a_refused_connection_on_a_local_checkpoint_is_not_the_store() -> None:
    error = explain_failure(
        RuntimeError("java.net.ConnectException: Connection refused"), SparkAppSettings()
    )
    assert not isinstance(error, CheckpointStoreLostError)


def test_a_full_disk_names_the_checkpoint_and_says_free_space(tmp_path: Path) -> None:
    # Spark 4.2.0 on a full 16 MiB tmpfs (storage-outage): the state store's commit met it.
    said = (
        "[FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided function "
        "in foreach batch sink. Reason: … [CANNOT_WRITE_STATE_STORE.CANNOT_COMMIT] Error "
        "writing state store files for provider HDFSStateStore[…]\n"
        "Caused by: org.apache.hadoop.fs.FSError: java.io.IOException: No space left on device"
    )
    settings = SparkAppSettings(checkpoint=CheckpointPlace(folder=tmp_path))
    error = explain_failure(RuntimeError(said), settings)
    assert isinstance(error, CheckpointDiskFullError)
    assert str(error).startswith(
        "CHECKPOINT_DISK_FULL: [CANNOT_WRITE_STATE_STORE.CANNOT_COMMIT] "
        "org.apache.hadoop.fs.FSError: java.io.IOException: No space"
    )
    assert f"the disk under {tmp_path} is full" in str(error) and "free space" in str(error)
    assert type(error_in_text(f"spark_app: {error}")) is CheckpointDiskFullError


# Spark 4.2.0 with HDFS's client when the proxy in front of the NameNode reset its connection.
HDFS_GONE = (
    "[STREAM_FAILED] Query [id = 0ac9, runId = ff23] terminated with exception: End of File "
    'Exception between local host is: "vm/127.0.0.1"; destination host is: "localhost":53509; : '
    "java.io.EOFException; For more details see:  http://wiki.apache.org/hadoop/EOFException "
    "SQLSTATE: XXKST\njava.io.EOFException: End of File Exception between local host is: "
    '"vm/127.0.0.1"; destination host is: "localhost":53509; : java.io.EOFException\n'
    "\tat org.apache.hadoop.ipc.Client.call(Client.java:1530)"
)


def test_a_namenode_gone_mid_run_is_the_store_too() -> None:
    settings = SparkAppSettings(checkpoint=CheckpointPlace("hdfs", url="hdfs://127.0.0.1:53509"))
    error = explain_failure(RuntimeError(HDFS_GONE), settings)
    assert isinstance(error, CheckpointStoreLostError)
    assert str(error).startswith(
        "CHECKPOINT_STORE.UNREACHABLE: End of File Exception between "
        'local host is: "vm/127.0.0.1"; destination host is: '
        '"localhost":53509; : java.io.EOFException [playground: the '
        "hdfs checkpoint store at hdfs://127.0.0.1:53509 stopped"
    )


# Spark 4.2.0, checkpoint-moved-and-shared: a second app on the checkpoint replayed the pending
# batch 26 and found commits/26 already written by the first.
SHARED = (
    "[STREAM_FAILED] Query [id = 8991f0f0-a849-4854-a21f-8fda11c0ceca, runId = 1a4ac626-"
    "95c0-4399-ab8a-d6d845166a77] terminated with exception: [CONCURRENT_STREAM_LOG_UPDATE] "
    "Concurrent update to the log. Multiple streaming jobs detected for 26.\nPlease make sure "
    "only one streaming job runs on a specific checkpoint location at a time. SQLSTATE: 40000"
)


def test_a_second_writer_on_the_checkpoint_is_named_and_the_folder_is_not_to_be_deleted() -> None:
    error = explain_failure(
        RuntimeError(SHARED), SparkAppSettings(checkpoint=CheckpointPlace(folder=Path("cp")))
    )
    assert isinstance(error, CheckpointSharedError) and not isinstance(error, CheckpointError)
    assert str(error).startswith(
        "CHECKPOINT_SHARED: [CONCURRENT_STREAM_LOG_UPDATE] Concurrent "
        "update to the log. Multiple streaming jobs detected for 26. "
        "Please make sure only one streaming job runs on a specific "
        "checkpoint location at a time. [playground: another query "
        "wrote batch 26 of cp first"
    )
    assert "do not delete it" in str(error)
    assert isinstance(error_in_text(f"spark_app: {error}"), CheckpointSharedError)
