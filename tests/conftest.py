"""Shared test setup.

A plain `pytest` runs the fast tests only. `pytest --slow` also runs the tests marked `spark`
and `e2e` (real Spark sessions, several real processes); that is what CI and the README's
test command run. Docker tests skip themselves with a reason when no Docker engine answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scenarios.engine import apps

SLOW_MARKERS = ("spark", "e2e")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the slow tests (marked spark or e2e), as CI does",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Deselect rather than skip, so a fast run reports only what it ran.
    if not config.getoption("--slow") and not config.option.markexpr:
        config.option.markexpr = " and ".join(f"not {m}" for m in SLOW_MARKERS)


@pytest.fixture
def docker_engine() -> None:
    """Skip the test, saying why, unless a Docker engine answers (testcontainers needs one)."""
    try:
        import docker
        import docker.errors
    except ImportError:
        pytest.skip("the docker package is not installed")
    try:
        docker.from_env().ping()
    except (docker.errors.DockerException, OSError) as error:
        pytest.skip(f"no Docker engine answers ({type(error).__name__})")


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the scenarios' own choice)."""
    return apps.free_port()


@pytest.fixture
def embedded_broker(tmp_path: Path, free_port: int) -> Iterator["object"]:
    """A running embedded broker on a free port, with its data in a temporary folder.

    Yields the EmbeddedBroker; `broker.bootstrap_servers` is its "127.0.0.1:PORT".
    """
    from kafka_app.broker import BrokerSettings, EmbeddedBroker

    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "kafka-data",
                              retention_check_sec=1, retention_initial_delay_sec=0)
    with EmbeddedBroker(settings) as broker:
        yield broker
