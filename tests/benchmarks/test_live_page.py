"""The live-page benchmark's measure of the event streams, against the page's real server.

The benchmark itself runs the demo (Kafka and Spark); here its tabs watch a LiveServer that
publishes fragments as the demo's page does, so what they time is what a tab is sent.
"""

from __future__ import annotations

import threading
import time

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
