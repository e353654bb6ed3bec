"""When the JVM ends first (Ctrl-C reaching the whole process group), the Python-side traces
go to spark.log, not to the terminal, and the failure reads as the JVM's end."""

from __future__ import annotations

import logging
import socketserver
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from py4j.protocol import Py4JError, Py4JNetworkError

from spark_app.runtime.jvm_end import jvm_gone, keep_jvm_traces_in_log


@pytest.fixture
def root_handlers() -> Iterator[None]:
    """The root logger as it was: the module adds a handler to it for the process's life."""
    root = logging.getLogger()
    before = list(root.handlers)
    yield
    for handler in root.handlers[:]:
        if handler not in before:
            root.removeHandler(handler)
            handler.close()


class _Server(socketserver.BaseServer):
    def __init__(self) -> None:  # no socket: only handle_error is used
        pass


def test_py4j_and_the_accumulator_server_write_to_the_log_not_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], root_handlers: None
) -> None:
    log = tmp_path / "spark.log"
    server = _Server()
    keep_jvm_traces_in_log(
        SimpleNamespace(sparkContext=SimpleNamespace(_accumulatorServer=server)), log
    )
    try:
        raise ConnectionResetError(104, "Connection reset by peer")
    except ConnectionResetError:
        # What Py4J does when the JVM is gone: on the root logger, which would otherwise
        # configure itself to print this and every later record on stderr.
        logging.exception("Exception while sending command.")
        logging.getLogger("py4j.clientserver").error("There was an exception", exc_info=True)
        server.handle_error(None, ("127.0.0.1", 40066))
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    written = log.read_text(encoding="utf-8")
    assert "Exception while sending command." in written
    assert "There was an exception" in written
    assert "accumulator server" in written and written.count("Traceback") == 3


def test_the_apps_own_records_are_not_written_twice(tmp_path: Path, root_handlers: None) -> None:
    from spark_app.runtime.log_file import log_to

    log = tmp_path / "spark.log"
    ours = logging.getLogger("spark_app.test_jvm_end")
    log_to(logging.getLogger("spark_app"), log)
    keep_jvm_traces_in_log(SimpleNamespace(sparkContext=SimpleNamespace()), log)
    keep_jvm_traces_in_log(SimpleNamespace(sparkContext=SimpleNamespace()), log)  # once only
    ours.warning("one line of ours")
    logging.getLogger("kafka.conn").warning("one line of kafka's")
    written = log.read_text(encoding="utf-8")
    assert written.count("one line of ours") == 1 and written.count("one line of kafka's") == 1


def test_a_failure_caused_by_a_closed_connection_is_the_jvms_end() -> None:
    network = Py4JNetworkError("Answer from Java side is empty")
    assert jvm_gone(ConnectionRefusedError(111, "Connection refused"))
    assert jvm_gone(network)
    wrapped = Py4JError("An error occurred while calling o44.awaitTermination")
    wrapped.__cause__ = network
    assert jvm_gone(wrapped)
    assert not jvm_gone(Py4JError("An error occurred while calling o1257.getResult"))
    assert not jvm_gone(RuntimeError("KAFKA_DATA_LOSS"))
