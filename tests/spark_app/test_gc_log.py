"""The driver's GC log (`--gc-log`): a real JVM started with gc_log.java_options writes the
periodic full collections that live_heaps reads back."""

from __future__ import annotations

import subprocess
from pathlib import Path

from maven_jars.jvm import NO_PERF_FILE
from spark_app.lines.gc_log import LiveHeap, java_options, live_heaps

# Keeps 8 MiB reachable and idles long enough for a periodic collection of one second (G1
# checks once a second, so the first came 2 s in, on a busy machine).
_IDLE_HOLDER = """
public class IdleHolder {
    public static void main(String[] args) throws Exception {
        byte[][] kept = new byte[8][];
        for (int i = 0; i < kept.length; i++) kept[i] = new byte[1 << 20];
        Thread.sleep(3500);
        System.out.println(kept.length);
    }
}
"""


def test_a_real_jvm_logs_periodic_full_collections_that_show_the_live_heap(tmp_path: Path) -> None:
    source = tmp_path / "IdleHolder.java"
    source.write_text(_IDLE_HOLDER)
    log = tmp_path / "gc.log"
    # Compiled first, by javac: run from its source, the JVM would compile it in its own heap,
    # and on a loaded machine a periodic collection during the compile saw javac's tens of MiB.
    subprocess.run(
        ["javac", f"-J{NO_PERF_FILE}", str(source)], check=True, capture_output=True, timeout=120
    )
    subprocess.run(
        ["java", NO_PERF_FILE, *java_options(log, every_sec=1), "-cp", str(tmp_path), "IdleHolder"],
        check=True,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    heaps = live_heaps(log.read_text())
    assert heaps, log.read_text()
    assert all(8 <= h.mib < 64 for h in heaps)  # the 8 MiB held, and little besides


def test_only_the_periodic_full_collections_count() -> None:
    text = (
        "[0.221s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 28M->21M(380M) 6.875ms\n"
        "[40.180s][info][gc] GC(19) Pause Full (G1 Periodic Collection) 166M->71M(244M) 110.299ms\n"
        "[41.000s][info][gc] GC(20) Pause Full (System.gc()) 90M->70M(244M) 80.000ms\n"
    )
    assert live_heaps(text) == [LiveHeap(40.18, 71)]


def test_the_log_path_is_absolute_so_the_jvm_writes_where_asked(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert f"-Xlog:gc:file={tmp_path / 'log' / 'gc.log'}" in java_options(Path("log/gc.log"))
