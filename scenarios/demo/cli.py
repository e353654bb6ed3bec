"""The demo's command line: build the settings, pick the face, always clean up.

`python -m scenarios demo` hands its arguments to `run_demo`. On a terminal (stdin and stdout
both ttys) the demo is a live screen driven by single keys; otherwise it is the plain line mode.
Ctrl-C, SIGTERM and SIGHUP end it like `q`: both apps are stopped and nothing is left running.
With `--web` it also serves the live page (scenarios/web/), started before the apps and
stopped after them, however the demo ends.

Usage:
    sys.exit(run_demo(["--retention-sec", "15"]))  # start in the retention race
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType

from rich.console import Console

from launch.errors import LaunchError
from launch.hangup import detach_from_terminal, hang_up
from launch.platform_needs import demo_needs, require
from scenarios.demo.errors import DemoError
from scenarios.demo.session import DemoSession
from scenarios.demo.settings import DemoSettings, main_parser, settings_from_args
from scenarios.demo.state import DemoState
from scenarios.demo.terminal import run_live, run_plain
from scenarios.demo.view import status_line
from scenarios.engine.timeline import Timeline
from scenarios.errors import ScenarioError

__all__ = ["run_demo"]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # SIGTERM takes the same way out as Ctrl-C, through the cleanup; SIGHUP too (hang_up).
    raise KeyboardInterrupt


@contextmanager
def _signals_as_interrupt() -> Iterator[None]:
    # SIGINT too, though Python raises KeyboardInterrupt for it by default: not where SIGINT
    # came in ignored (a script's background job, `nohup … &`), which Python keeps, and there
    # Ctrl-C did nothing. The apps take it the same way (kafka_app/interrupts.py, SparkApp).
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        signal.SIGTERM: signal.signal(signal.SIGTERM, _interrupt),
        signal.SIGHUP: signal.signal(signal.SIGHUP, hang_up),
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _plain_event(text: str) -> None:
    print(f"[demo] {text}", flush=True)


def _farewell(session: DemoSession) -> None:
    """What to keep from the run once the screen is gone."""
    state = session.state
    print(f"[demo] final: {status_line(state)}")
    for line in state.verdict.details:
        print(f"[demo]   {line}")
    settings = session.settings
    print(
        f"[demo] output log {settings.output_log}, checkpoint {session.checkpoint_shown}, "
        f"app consoles {settings.log_dir}/demo-producer.out and {settings.log_dir}/demo-spark.out"
    )


@contextmanager
def _cleanup_uninterrupted() -> Iterator[None]:
    # A second Ctrl-C while the apps are being stopped must not leave half of them running.
    previous = {
        sig: signal.signal(sig, signal.SIG_IGN)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _terminal_errors() -> tuple[type[Exception], ...]:
    """What a vanished terminal raises: OSError, and termios's own error where there is termios
    (imported here, not at the top: the plain line mode runs without it)."""
    try:
        import termios
    except ImportError:
        return (OSError,)
    return (OSError, termios.error)


@contextmanager
def _terminal_may_be_gone() -> Iterator[None]:
    """A closed terminal fails reads and writes (EIO) before its SIGHUP arrives: stop using it,
    so what follows (the cleanup above all) runs to the end."""
    try:
        yield
    except _terminal_errors():
        detach_from_terminal()


Page = tuple[str, Callable[[DemoState, Timeline], None]]


@contextmanager
def _live_page(settings: DemoSettings) -> Iterator[Page | None]:
    """The page's server, when asked for: up before the apps start, down after they stopped.
    Yields its address and what the session calls after each tick."""
    if settings.web is None:
        yield None
        return
    # Here, not at the top: aiohttp only when asked for, as the live screen's modules are.
    from scenarios.web.demo_page import DemoPage
    from scenarios.web.server import LiveServer, WebServerError

    try:
        server = LiveServer(settings.web, "the demo").start()
    except WebServerError as error:
        raise DemoError(str(error)) from error
    try:
        print(f"[demo] live page: {server.url}", flush=True)
        if (warning := settings.web.warning()) is not None:
            print(f"[demo] {warning}", flush=True)
        yield server.url, DemoPage(server, settings.topic).show
    finally:
        server.stop()


def _run(settings: DemoSettings) -> None:
    with _live_page(settings) as page:
        _run_session(settings, page)


def _run_session(settings: DemoSettings, page: Page | None) -> None:
    interactive = _interactive()
    session = DemoSession(
        settings,
        on_event=None if interactive else _plain_event,
        on_tick=page[1] if page is not None else None,
    )
    if page is not None:
        session.serve_page_at(page[0])
    try:
        session.start()
        with _terminal_may_be_gone():
            if interactive:
                run_live(session, Console(), sys.stdin)
            else:
                run_plain(session, sys.stdin, sys.stdout)
    except KeyboardInterrupt:
        pass  # Ctrl-C is the other way to quit
    finally:
        with _cleanup_uninterrupted():
            if session.started:
                with _terminal_may_be_gone():
                    print("[demo] stopping both apps...", flush=True)
            session.close()
    session.tick()
    with _terminal_may_be_gone():
        _farewell(session)


def run_demo(argv: Sequence[str]) -> int:
    """Run the demo until `q`; 0 on a normal end (also Ctrl-C), 1 if it could not run, 2 on usage."""
    try:
        args = main_parser().parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        # Before anything starts: a platform without /proc (macOS) or termios gets one line.
        require("python -m scenarios demo", demo_needs(_interactive()))
        with _signals_as_interrupt():
            _run(settings_from_args(args))
    except KeyboardInterrupt:
        return 0
    except (DemoError, ScenarioError, LaunchError) as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1
    return 0
