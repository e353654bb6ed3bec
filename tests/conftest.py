"""Shared test setup.

A plain `pytest` runs the fast tests only. `pytest --slow` also runs the tests marked `spark`,
`e2e` and `docker` (real Spark sessions, several real processes, Kafka in a container); that
is what CI and the README's test command run, and it ends with CI's budget table
(tests/budget.py). `pytest --nightly` adds the tests marked `nightly`, which do not fit CI's
hour; a `--slow` run names how many it left out and the command that runs them. Docker tests
skip themselves with a reason when no Docker engine answers or our Kafka image cannot be built
(kafka_app/container).
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from launch import ports
from tests.budget import budget_lines, part_of

# docker: a container start is seconds to minutes, and dockerd may need starting (.ci/run does).
SLOW_MARKERS = ("spark", "e2e", "docker")
NIGHTLY_COMMAND = "uv run pytest --nightly -m nightly"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the slow tests (marked spark or e2e), as CI does",
    )
    parser.addoption(
        "--nightly",
        action="store_true",
        help="also run the tests marked nightly (outside CI's hour); implies --slow",
    )


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG["config"] = config  # test reports do not carry it; the budget's hooks need it
    # Deselect rather than skip, so a fast run reports only what it ran.
    if config.option.markexpr:
        return
    if config.getoption("--nightly"):
        return
    if config.getoption("--slow"):
        config.option.markexpr = "not nightly"
    else:
        config.option.markexpr = " and ".join(f"not {m}" for m in (*SLOW_MARKERS, "nightly"))


# --- CI's budget: which part each test belongs to, and the minutes each part took ------------

_CONFIG: dict[str, pytest.Config] = {}
_PART = pytest.StashKey[dict[str, str]]()
_SECONDS = pytest.StashKey[dict[str, float]]()
_LEFT_OUT = pytest.StashKey[int]()


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    root = config.rootpath
    config.stash[_PART] = {
        item.nodeid: part_of(
            item.path.relative_to(root).as_posix(), {m.name for m in item.iter_markers()}
        ).name
        for item in items
    }
    config.stash[_SECONDS] = {}


def pytest_deselected(items: list[pytest.Item]) -> None:
    nightly = [i for i in items if i.get_closest_marker("nightly") is not None]
    if nightly:
        config = nightly[0].config
        config.stash[_LEFT_OUT] = config.stash.get(_LEFT_OUT, 0) + len(nightly)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Setup, call and teardown each add their time to the test's part."""
    config = _CONFIG.get("config")
    part = config.stash.get(_PART, {}).get(report.nodeid) if config is not None else None
    if part is not None:
        seconds = config.stash[_SECONDS]
        seconds[part] = seconds.get(part, 0.0) + report.duration


def pytest_unconfigure(config: pytest.Config) -> None:
    """pytest removes a passed run's numbered folder but keeps its parent, pytest-of-<user>, in
    /tmp: remove it too when nothing is left in it (a failed test's folder keeps it)."""
    factory = getattr(config, "_tmp_path_factory", None)
    base = getattr(factory, "_basetemp", None)
    if base is None or config.option.basetemp:
        return
    try:
        Path(base).parent.rmdir()
    except OSError:
        pass  # not empty: a failed test's folder, or another run's, is kept there


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not (config.getoption("--slow") or config.getoption("--nightly")):
        return
    terminalreporter.section("CI budget (docs/testing.md#the-ci-budget)")
    for line in budget_lines(config.stash.get(_SECONDS, {})):
        terminalreporter.write_line(line)
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} nightly test(s) not run (outside CI's hour): `{NIGHTLY_COMMAND}` runs them"
        )


def _docker_or_skip() -> None:
    """Skip the test, saying why, unless a Docker engine answers (testcontainers needs one)."""
    from kafka_app.container import NoDockerEngine
    from kafka_app.container.image import docker_client

    try:
        docker_client()
    except NoDockerEngine as error:
        pytest.skip(f"{error} (.ci/run starts one)")


@pytest.fixture(autouse=True)
def _stop_signals_as_they_were() -> Iterator[None]:
    """Each test leaves SIGINT, SIGTERM and SIGHUP as it found them. Tests that run a command's
    main in this process install its handlers for good: after tests/spark_app/test_cli.py, SIGINT
    called a finished Spark app's request_stop, so Ctrl-C on pytest did nothing for the rest of
    the run (found by tests/test_stopped_gently.py, which runs after it)."""
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {number: signal.getsignal(number) for number in stops}
    yield
    for number, handler in before.items():
        if signal.getsignal(number) is not handler and handler is not None:
            signal.signal(number, handler)


@pytest.fixture(autouse=True, scope="session")
def _tmux_sockets_in_pytests_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The terminal tests' tmux servers keep their sockets under pytest's own folder: tmux puts
    them in $TMUX_TMPDIR/tmux-<uid>/, /tmp by default, and leaves them there when killed."""
    before = os.environ.get("TMUX_TMPDIR")
    folder = tmp_path_factory.mktemp("tmux")
    os.environ["TMUX_TMPDIR"] = str(folder)
    yield
    if before is None:
        os.environ.pop("TMUX_TMPDIR", None)
    else:
        os.environ["TMUX_TMPDIR"] = before
    # Not a test's folder, so pytest's retention of failed tests' folders would keep it: a run
    # that passed leaves nothing of its own in /tmp.
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def kafka_image() -> str:
    """Our Kafka image's tag: built once per machine (.ci/run builds it before the tests, with
    progress), found by its inputs' hash afterwards; skips, saying why, when it cannot be built."""
    _docker_or_skip()
    from kafka_app.container import ImageBuildError
    from kafka_app.container.image import ensure_image

    try:
        return ensure_image(progress=False)
    except ImageBuildError as error:
        pytest.skip(f"our Kafka image cannot be built here: {error}")


@pytest.fixture
def kafka_container(kafka_image: str) -> Iterator[object]:
    """One Kafka node in a container of our image, published on 127.0.0.1:PORT, ready for
    clients; removed at the end. `kafka_container.bootstrap_servers` is its address."""
    from kafka_app.container.container import KafkaContainer

    with KafkaContainer(kafka_image) as kafka:
        yield kafka


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the scenarios' own choice)."""
    return ports.free_port()


@pytest.fixture
def embedded_broker(tmp_path: Path, free_port: int) -> Iterator[object]:
    """A running embedded broker on a free port, with its data in a temporary folder.

    Yields the EmbeddedBroker; `broker.bootstrap_servers` is its "127.0.0.1:PORT".
    """
    from kafka_app.broker import BrokerSettings, EmbeddedBroker

    settings = BrokerSettings(
        port=free_port,
        data_dir=tmp_path / "kafka-data",
        retention_check_sec=1,
        retention_initial_delay_sec=0,
    )
    with EmbeddedBroker(settings) as broker:
        yield broker
