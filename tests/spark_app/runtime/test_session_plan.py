"""The session's plan: every Spark setting and environment variable the app's session gets,
checked without starting Spark."""

from __future__ import annotations

import os
from pathlib import Path

from checkpoint_stores import CheckpointPlace
from spark_app.runtime.session_plan import Found, child_env, session_conf, session_plan
from spark_app.settings import SparkAppSettings

FOUND = Found(
    python="/venv/bin/python",
    code_root=Path("/repo"),
    log4j_file=Path("/tmp/s/log4j2.properties"),
    checkpoint_files_class="org.apache.spark.FileSystemBasedCheckpointFileManager",
)


def test_the_conf_follows_the_settings() -> None:
    conf = session_conf(
        SparkAppSettings(master="local[3]", shuffle_partitions=4, ui_port=4041),
        FOUND,
        app_name="Inspect",
    )
    assert conf["spark.master"] == "local[3]" and conf["spark.app.name"] == "Inspect"
    assert conf["spark.sql.shuffle.partitions"] == "4" and conf["spark.ui.port"] == "4041"
    assert (
        "-Dlog4j2.configurationFile=file:/tmp/s/log4j2.properties"
        in conf["spark.driver.extraJavaOptions"]
    )
    assert conf["spark.sql.streaming.checkpointFileManagerClass"] == FOUND.checkpoint_files_class
    assert "spark.eventLog.enabled" not in conf and "spark.jars.packages" not in conf


def test_options_add_their_settings() -> None:
    found = Found(
        **{
            **FOUND.__dict__,
            "class_cache_options": "-XX:SharedArchiveFile=/c.jsa",
            "slow_classes": Path("/cache/slow.jar"),
            "connector_conf": {"spark.jars.packages": "org.apache.spark:kafka:4.3.0"},
        }
    )
    settings = SparkAppSettings(checkpoint_latency="fixed:2s", event_log_dir=Path("/runs/events"))
    conf = session_conf(settings, found)
    assert conf["spark.driver.extraJavaOptions"].endswith(" -XX:SharedArchiveFile=/c.jsa")
    # The slow file manager replaces Spark's, from a jar on spark.jars.
    assert (
        conf["spark.sql.streaming.checkpointFileManagerClass"]
        == "checkpointexperience.SlowCheckpointFileManager"
    )
    assert conf["spark.jars"] == "/cache/slow.jar"
    assert conf["spark.hadoop.checkpointexperience.latency.kind"] == "fixed"
    assert conf["spark.eventLog.dir"] == "file:///runs/events"
    assert conf["spark.jars.packages"] == "org.apache.spark:kafka:4.3.0"


def test_a_gc_log_adds_the_jvms_log_and_its_periodic_full_collections() -> None:
    options = session_conf(SparkAppSettings(gc_log=Path("/runs/log/gc.log")), FOUND)[
        "spark.driver.extraJavaOptions"
    ].split()
    assert "-Xlog:gc:file=/runs/log/gc.log" in options
    assert "-XX:-G1PeriodicGCInvokesConcurrent" in options  # full collections: the live heap
    assert not any(
        o.startswith("-Xlog")
        for o in session_conf(SparkAppSettings(), FOUND)["spark.driver.extraJavaOptions"].split()
    )


def test_the_jvms_temporary_folder_is_the_processes_own() -> None:
    """lz4's and RocksDB's native libraries and Spark's artifacts-* folders go to java.io.tmpdir:
    in /tmp, every killed JVM left them behind."""
    found = Found(**{**FOUND.__dict__, "jvm_temp_dir": Path("/tmp/spark_app-session-7-jvm")})
    options = session_conf(SparkAppSettings(), found)["spark.driver.extraJavaOptions"]
    assert "-Djava.io.tmpdir=/tmp/spark_app-session-7-jvm" in options.split()
    assert (
        "java.io.tmpdir"
        not in session_conf(SparkAppSettings(), FOUND)["spark.driver.extraJavaOptions"]
    )


def test_sparks_scratch_space_is_the_sessions_folder() -> None:
    """In /tmp, every kill -9 of the app left Spark's scratch folders behind (the jars each
    start copies among them); in the session's folder, the next start removes them."""
    assert "spark.local.dir" not in session_conf(SparkAppSettings(), FOUND)
    found = Found(**{**FOUND.__dict__, "temp_dir": Path("/tmp/spark_app-session-7-x")})
    assert (
        session_conf(SparkAppSettings(), found)["spark.local.dir"] == "/tmp/spark_app-session-7-x"
    )


def test_hadoops_scratch_space_is_the_sessions_folder_on_a_store() -> None:
    """S3A buffers its uploads under hadoop.tmp.dir, /tmp/hadoop-<user> unless set."""
    found = Found(**{**FOUND.__dict__, "temp_dir": Path("/tmp/spark_app-session-7-x")})
    on_s3 = session_conf(SparkAppSettings(checkpoint=CheckpointPlace("s3")), found)
    assert on_s3["spark.hadoop.hadoop.tmp.dir"] == "/tmp/spark_app-session-7-x/hadoop"
    assert "spark.hadoop.hadoop.tmp.dir" not in session_conf(SparkAppSettings(), found)


def test_retention_is_spark_s_default_unless_told() -> None:
    conf = session_conf(SparkAppSettings(), FOUND)
    assert "spark.sql.streaming.minBatchesToRetain" not in conf
    assert "spark.sql.streaming.ratioExtraSpaceAllowedInCheckpoint" not in conf
    conf = session_conf(SparkAppSettings(min_batches_to_retain=20, extra_space_ratio=0.0), FOUND)
    assert conf["spark.sql.streaming.minBatchesToRetain"] == "20"
    assert conf["spark.sql.streaming.ratioExtraSpaceAllowedInCheckpoint"] == "0.0"


def test_the_jvm_environment_lets_workers_run_our_python_and_import_the_app() -> None:
    given = {"PATH": "/bin", "PYTHONPATH": "/lib", "PYTHONDONTWRITEBYTECODE": "1"}
    env = child_env(given, "/venv/bin/python", Path("/repo"))
    assert env["PYSPARK_PYTHON"] == "/venv/bin/python" and env["SPARK_LOCAL_IP"] == "127.0.0.1"
    assert env["PYTHONPATH"] == f"/repo{os.pathsep}/lib" and env["PATH"] == "/bin"
    assert "PYTHONDONTWRITEBYTECODE" not in env  # workers may keep their bytecode
    assert given == {"PATH": "/bin", "PYTHONPATH": "/lib", "PYTHONDONTWRITEBYTECODE": "1"}


def test_a_users_own_choices_are_kept() -> None:
    given = {"PYSPARK_PYTHON": "/opt/py", "SPARK_LOCAL_IP": "10.0.0.5", "PYTHONPATH": "/repo"}
    env = child_env(given, "/venv/bin/python", Path("/repo"))
    # The project's folder is not added twice; only the launcher's counters flag is added.
    assert env == given | {"SPARK_LAUNCHER_OPTS": "-XX:-UsePerfData"}


def test_planning_changes_nothing_in_this_process() -> None:
    before = dict(os.environ)
    plan = session_plan(SparkAppSettings(), FOUND, {"PATH": "/bin"})
    assert plan.env["PYTHONPATH"] == "/repo" and plan.conf["spark.master"] == "local[2]"
    assert dict(os.environ) == before


def test_a_clusters_executors_keep_their_temporary_files_in_the_sessions_folder() -> None:
    """Executors on this machine left lz4's native library in /tmp; local[N] has none."""
    found = Found(**{**FOUND.__dict__, "jvm_temp_dir": Path("/tmp/spark_app-session-7-jvm")})
    cluster = session_conf(SparkAppSettings(master="local-cluster[2,1,1024]"), found)
    options = cluster["spark.executor.extraJavaOptions"].split()
    assert "-Djava.io.tmpdir=/tmp/spark_app-session-7-jvm" in options
    assert "spark.executor.extraJavaOptions" not in session_conf(SparkAppSettings(), found)


def test_no_jvm_of_the_app_writes_its_counters_file_to_tmp() -> None:
    """A killed JVM left /tmp/hsperfdata_<user>/<pid> behind; the driver and a cluster's
    executors are started without it."""
    found = Found(**{**FOUND.__dict__, "jvm_temp_dir": Path("/tmp/spark_app-session-7-jvm")})
    cluster = session_conf(SparkAppSettings(master="local-cluster[2,1,1024]"), found)
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        assert "-XX:-UsePerfData" in cluster[key].split()


def test_spark_class_launcher_jvm_writes_no_counters_file_either() -> None:
    """spark-class starts a small JVM of its own before the driver, which no spark.* option
    reaches: it left an empty /tmp/hsperfdata_<user> after every fresh-clone CI run."""
    env = child_env({"SPARK_LAUNCHER_OPTS": "-Xss4m"}, "/usr/bin/python3", Path("/repo"))
    assert env["SPARK_LAUNCHER_OPTS"].split() == ["-Xss4m", "-XX:-UsePerfData"]
    assert (
        child_env(env, "/usr/bin/python3", Path("/repo"))["SPARK_LAUNCHER_OPTS"]
        == env["SPARK_LAUNCHER_OPTS"]
    )


def test_a_clusters_executors_compile_with_c1_only_as_the_driver_does() -> None:
    """On two cores a starting JVM's C2 threads slowed every cluster start by about 5 s."""
    cluster = session_conf(SparkAppSettings(master="local-cluster[2,1,1024]"), FOUND)
    for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
        assert "-XX:TieredStopAtLevel=1" in cluster[key].split()


def test_the_slow_file_manager_leaves_the_class_path_as_the_class_archive_knows_it() -> None:
    """On extraClassPath its jar came before Spark's own, and no JVM of a slow-checkpoint app
    could map the class archive: the cluster scenarios started without one."""
    found = Found(
        **{
            **FOUND.__dict__,
            "slow_classes": Path("/cache/slow.jar"),
            "connector_conf": {"spark.jars": "/jars/kafka.jar,/jars/clients.jar"},
            "store_conf": {"spark.jars": "/jars/s3.jar"},
        }
    )
    conf = session_conf(
        SparkAppSettings(master="local-cluster[2,1,1024]", checkpoint_latency="fixed:2s@state"),
        found,
    )
    assert not any(key.endswith("extraClassPath") for key in conf)
    assert conf["spark.jars"].split(",") == [
        "/cache/slow.jar",
        "/jars/kafka.jar",
        "/jars/clients.jar",
        "/jars/s3.jar",
    ]


def test_a_clusters_executors_map_the_drivers_class_archive_once_it_exists() -> None:
    archive = "-XX:SharedArchiveFile=/c.jsa -Xlog:cds=off"
    found = Found(
        **{
            **FOUND.__dict__,
            "class_cache_options": "-XX:DumpLoadedClassList=/s/l.txt",
            "executor_class_options": archive,
        }
    )
    executors = session_conf(SparkAppSettings(master="local-cluster[2,1,1024]"), found)[
        "spark.executor.extraJavaOptions"
    ]
    assert executors.endswith(archive) and "DumpLoadedClassList" not in executors
    assert (
        "SharedArchiveFile"
        not in session_conf(SparkAppSettings(master="local-cluster[2,1,1024]"), FOUND)[
            "spark.executor.extraJavaOptions"
        ]
    )
