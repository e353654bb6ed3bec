"""storage-outage's pure parts and its stage parts, without Spark: tearing a file as a power loss
does, reading Spark's condition from a console, the store's proxy, the small disk's refusal."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from scenarios.catalog.storage_outage import Restart, crc_of, spark_condition, tear
from scenarios.engine.stage.disk import DiskPart
from scenarios.errors import StepFailed
from tests.scenarios.more_helpers import idle_stage


def test_tear_keeps_a_prefix_in_place(tmp_path: Path) -> None:
    path = tmp_path / "commits" / "3"
    path.parent.mkdir()
    path.write_text('v1\n{"nextBatchWatermarkMs":0}')
    assert tear(path, keep=0.5) == (29, 14)
    assert path.read_text() == 'v1\n{"nextBatch'
    assert tear(tmp_path / "commits" / "4", keep=0.0) == (0, 0)  # created empty
    assert (tmp_path / "commits" / "4").read_bytes() == b""


def test_hadoop_s_checksum_file_sits_beside_with_a_dot() -> None:
    assert crc_of(Path("cp/offsets/7")) == Path("cp/offsets/.7.crc")
    assert crc_of(Path("cp/state/0/0/5.delta")) == Path("cp/state/0/0/.5.delta.crc")


def test_spark_s_condition_is_the_bracketed_one_else_the_java_exception() -> None:
    assert (
        spark_condition("x [CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] An error")
        == "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"
    )
    assert (
        spark_condition("[WARN] x\njava.lang.IllegalStateException: Incomplete log file")
        == "java.lang.IllegalStateException"
    )
    assert spark_condition("Count = 3") is None


def test_a_restart_in_words() -> None:
    assert Restart(True, 14.2).words() == "continued (new values after 14 s)"
    failed = Restart(False, 2.0, 1, "CHECKPOINT_UNUSABLE.TORN_FILE: x", None)
    assert failed.words() == "exit 1 after 2 s: CHECKPOINT_UNUSABLE.TORN_FILE: x"


def test_the_store_proxy_keeps_the_url_but_its_port_and_can_be_cut(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    with socket.socket() as store:
        store.bind(("127.0.0.1", 0))
        store.listen(4)
        port = store.getsockname()[1]
        proxied = stage.store._behind_proxy(f"http://127.0.0.1:{port}/bucket")
        proxy = stage.store.proxy
        assert proxy is not None
        assert proxied == f"http://127.0.0.1:{proxy.listen_port}/bucket"
        with socket.create_connection(("127.0.0.1", proxy.listen_port), timeout=5):
            pass
        stage.store.cut()
        assert _refused_or_closed(proxy.listen_port)
        stage.store.restore()
        with socket.create_connection(("127.0.0.1", proxy.listen_port), timeout=5):
            pass
        stage.store.stop()


def _refused_or_closed(port: int) -> bool:
    """A cut proxy refuses a connection, or (when its accept was already waiting, which a
    close does not interrupt on Linux) accepts and closes it at once: either way no store."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return True
    with sock:
        sock.settimeout(5)
        try:
            return sock.recv(1) == b""
        except OSError:
            return True


def test_a_store_without_its_proxy_cannot_be_cut(tmp_path: Path) -> None:
    with pytest.raises(StepFailed, match="behind_proxy=True"):
        idle_stage(tmp_path).store.cut()


def test_the_small_disk_says_why_it_cannot_mount(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert DiskPart.unavailable() == (
        "mounting a tmpfs needs root (CAP_SYS_ADMIN); run the scenario as root"
    )


def test_the_small_disk_must_be_mounted_before_it_fills(tmp_path: Path) -> None:
    with pytest.raises(StepFailed, match="mount the small disk first"):
        idle_stage(tmp_path).disk.fill()
