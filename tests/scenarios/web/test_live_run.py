"""`scenarios run --web` around a run: the page is served while the run goes, its addresses are
printed, and it stops with the run however the run ends; without `--web` nothing is added."""

from __future__ import annotations

import http.client
import io

import pytest

from launch.ports import port_is_free
from scenarios.cli import run_cli
from scenarios.engine.scenario import Scenario
from scenarios.web.live_run import live_run
from scenarios.web.options import WebChoice


def _scenario() -> Scenario:
    return Scenario(
        name="chaos",
        title="kill -9 at random moments",
        summary="",
        origin="seed 001",
        run=lambda stage: None,
    )


def _status(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_without_web_the_run_is_as_before() -> None:
    with live_run(None, [_scenario()]) as page:
        assert page.listeners == () and page.ask is input


def test_the_page_serves_for_the_run_and_stops_with_it() -> None:
    out = io.StringIO()
    with live_run(WebChoice(), [_scenario()], out=out) as page:
        printed = out.getvalue()
        assert printed.startswith("live page: http://127.0.0.1:")
        port = int(printed.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        assert _status(port, "/") == 200
        assert len(page.listeners) == 1 and page.ask is input  # not guided: Enter stays input
        assert "runs the steps" not in printed
    assert port_is_free(port)


def test_a_guided_run_prints_where_to_step_and_a_failed_run_still_stops_the_page() -> None:
    out = io.StringIO()
    with (
        pytest.raises(KeyboardInterrupt),
        live_run(WebChoice(), [_scenario()], guided=True, out=out) as page,
    ):
        port = int(out.getvalue().split("127.0.0.1:", 1)[1].split("/", 1)[0])
        assert "live page that runs the steps (this machine only): http://127.0.0.1:" in (
            out.getvalue()
        )
        assert len(page.listeners) == 2 and page.ask is not input  # the step gate waits
        raise KeyboardInterrupt  # Ctrl-C in the middle of a run
    assert port_is_free(port)


def test_web_with_several_jobs_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["run", "chaos", "--web", "-j", "2", "--fast"]) == 2
    assert "--web shows one scenario at a time" in capsys.readouterr().err
