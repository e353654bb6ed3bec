"""The live-page benchmark's measure of the event streams, against the page's real server.

The benchmark itself runs the demo (Kafka and Spark); here its tabs watch a LiveServer that
publishes fragments as the demo's page does, so what they time is what a tab is sent.
"""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from benchmarks import live_page as bench
from scenarios.demo.state import BatchView, Verdict
from scenarios.web.options import WebChoice
from scenarios.web.server import LiveServer
from scenarios.web.view import AppView, LiveView, render_fragment


def _row(*committed: int, planned: int | None = None) -> str:
    rows = [f'<li data-batch="{n}" data-committed="yes">commits/{n}</li>' for n in committed]
    if planned is not None:
        rows.append(f'<li data-batch="{planned}" data-committed="no">no commit</li>')
    return "<ol>\n" + "\n".join(rows) + "\n</ol>"


def test_every_tab_times_each_batch_when_it_is_first_shown_committed() -> None:
    with LiveServer(WebChoice(), "demo") as server:
        server.publish(_row(1, planned=2))
        seen: list[dict[int, float]] = []
        tabs = threading.Thread(target=lambda: seen.extend(bench.watch(server.url, 3, 1.5)))
        tabs.start()
        time.sleep(0.5)
        shown_at = time.time()
        server.publish(_row(1, 2, planned=3))
        tabs.join()
    assert len(seen) == 3
    for tab in seen:
        assert set(tab) == {1, 2}  # a planned batch is not counted as shown committed
        assert tab[1] < shown_at <= tab[2] < shown_at + 0.5


def test_the_table_gives_each_figure_beside_its_target() -> None:
    lines = bench.table([0.2, 0.4, 0.9], 0.031, 0.052, 20, 30).splitlines()
    assert lines[0] == "| measure | figure | target |"
    assert "(3 commits), median | 0.400 s | 1 s |" in lines[2]
    assert lines[3].endswith("max | 0.900 s | 1 s |")
    assert lines[-1] == "| what the 20 tabs cost | 2.1 % | 5 % |"


def test_the_benchmark_reads_committed_batches_off_the_page_as_the_page_renders_them() -> None:
    # The page's own fragment, not one written here: a template change that moved or renamed
    # the attributes would blind the benchmark, and this fails first.
    view = LiveView(
        title="t",
        app=AppView(status="running"),
        verdict=Verdict(ok=None, headline=""),
        batches=(
            BatchView(7, (("Experience-0", 10, 12),), committed=True),
            BatchView(8, (("Experience-0", 12, 15),), committed=False),
        ),
    )
    assert bench.committed_batches(render_fragment(view)) == [7]


def test_a_commit_is_timed_by_its_file_on_a_folder_and_by_webhdfs_on_hdfs(tmp_path: Path) -> None:
    commits = tmp_path / "checkpoints" / "commits"
    commits.mkdir(parents=True)
    (commits / "4").write_text("v1")
    (commits / ".4.crc").write_text("")
    os.utime(commits / "4", (1_700_000_000.25, 1_700_000_000.25))
    assert bench.Commits(tmp_path, "local").written() == {4: 1_700_000_000.25}
    # A WebHDFS listing as the NameNode gives it: milliseconds, files and folders.
    listing = {
        "FileStatuses": {
            "FileStatus": [
                {"pathSuffix": "4", "type": "FILE", "modificationTime": 1_700_000_000_250},
                {"pathSuffix": ".4.crc", "type": "FILE", "modificationTime": 1_700_000_000_240},
                {"pathSuffix": "tmp", "type": "DIRECTORY", "modificationTime": 1},
            ]
        }
    }
    asked: list[str] = []

    class WebHdfs(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            asked.append(self.path)
            body = json.dumps(listing).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), WebHdfs) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            port = server.server_address[1]
            (tmp_path / "log").mkdir()
            # The store's ready line, as `python -m checkpoint_stores hdfs` prints it.
            (tmp_path / "log" / "demo-hdfs-store.out").write_text(
                "hdfs store ready at hdfs://127.0.0.1:8020 in 3.1 s (WebHDFS at "
                f"http://127.0.0.1:{port}, JVM pid 1, data in /d); Ctrl-C stops it\n"
            )
            written = bench.Commits(tmp_path, "hdfs").written()
        finally:
            server.shutdown()
    assert written == {4: 1_700_000_000.25}
    assert asked == [f"/webhdfs/v1{tmp_path}/checkpoints/commits?op=LISTSTATUS&user.name=root"]


def test_into_writes_the_table_between_the_stores_markers_only(tmp_path: Path) -> None:
    begin, end = bench.markers("hdfs")
    page = tmp_path / "BENCHMARKS.md"
    page.write_text(f"before\n{begin}\nold table\n{end}\nafter\n")
    bench.write_into(page, "hdfs", "demo on hdfs", "| a | b | c |")
    assert page.read_text() == f"before\n{begin}\ndemo on hdfs\n\n| a | b | c |\n{end}\nafter\n"
