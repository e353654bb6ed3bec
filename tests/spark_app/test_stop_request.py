"""A stop asked by a signal: the handler must finish whatever else arrives while it runs.

Python runs a signal's handler on the main thread between two bytecodes, so a second SIGTERM
(`timeout` and `uv run` each sent one on 26 Nov) can run the handler again in the middle of the
first. A handler that takes a lock (threading.Event.set does) then waits for itself for ever.
The test runs the handler again at every line the first one executes, as such signals can.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType
from typing import Any

from spark_app.query.app import SparkApp
from spark_app.settings import SparkAppSettings


def test_a_signal_arriving_inside_the_stop_handler_does_not_hang_it() -> None:
    app = SparkApp(SparkAppSettings())
    interruptions: list[str] = []

    def another_signal(frame: FrameType, event: str, _arg: Any) -> Any:
        if event == "line":  # a signal may land between any two lines the handler runs
            interruptions.append(frame.f_code.co_name)
            app.request_stop()  # the tracer is off inside the tracer: no endless nesting
        return another_signal

    def first_signal() -> None:
        sys.settrace(another_signal)
        try:
            app.request_stop()
        finally:
            sys.settrace(None)

    handler = threading.Thread(target=first_signal, daemon=True)
    handler.start()
    handler.join(timeout=10)
    assert not handler.is_alive(), f"the stop handler hung when interrupted at {interruptions}"
    assert interruptions, "the handler ran no line: the test interrupted nothing"
    assert app.stop_asked
