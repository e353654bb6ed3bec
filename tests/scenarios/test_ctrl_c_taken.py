"""Ctrl-C stops `scenarios run` and the demo even where they were started with SIGINT ignored.

A script's background job (`… &` without job control, `nohup`) starts with SIGINT ignored,
and Python keeps an ignored SIGINT instead of installing its KeyboardInterrupt handler: the
demo then sat through Ctrl-C (a fresh-clone CI run started that way, 27 Nov 2026). Both
commands now take SIGINT themselves, as the apps do. The e2e side: the demo's pipe test starts
it with SIGINT ignored (tests/scenarios/demo/test_demo_e2e.py).
"""

from __future__ import annotations

import signal

import pytest

from scenarios import cli as scenarios_cli
from scenarios.demo import cli as demo_cli


@pytest.fixture
def started_with_sigint_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # tests/conftest.py puts it back after


@pytest.mark.usefixtures("started_with_sigint_ignored")
def test_the_demo_takes_ctrl_c_and_gives_it_back_as_it_found_it() -> None:
    with pytest.raises(KeyboardInterrupt):
        with demo_cli._signals_as_interrupt():
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


@pytest.mark.usefixtures("started_with_sigint_ignored")
def test_a_run_takes_ctrl_c() -> None:
    scenarios_cli.stop_like_ctrl_c()  # launch/hangup.py's: run, nemesis, compat, the room
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)


@pytest.mark.usefixtures("started_with_sigint_ignored")
def test_sigterm_unwinds_like_ctrl_c_once() -> None:
    scenarios_cli.stop_like_ctrl_c()
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)
    # A second SIGTERM (`timeout`'s and `uv run`'s both arrive) must not cut the cleanup short.
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
