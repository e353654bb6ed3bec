"""A closed terminal (SIGHUP) ends a run the way Ctrl-C does: through the cleanup; and no app we
start outlives us, however we end.

Closing the window that runs the demo, or losing the SSH session, sends SIGHUP. Python's default
is to die on the spot, which leaves every app it started running (each sits in its own process
group, out of the terminal's reach). Turning SIGHUP into KeyboardInterrupt sends it down the
Ctrl-C path instead. Two more things matter. The terminal is gone, so the first line the
cleanup prints would fail with EIO and abort it halfway: the handler points stdin, stdout and
stderr at /dev/null before anything else runs. And the signal comes more than once (the kernel
sends it to the terminal's processes, `uv run` passes its own copy on): a second one must not
interrupt the cleanup the first one started, so the handler ignores the rest.

Should we die anyway (kill -9, an exception in the cleanup), `die_with_parent` is what each
child runs before its program starts: the kernel then kills it the moment we are gone (Linux's
PR_SET_PDEATHSIG). SIGKILL, not SIGTERM: an app still starting (a Spark session takes a minute
on a busy machine) looks at SIGTERM only once it runs, and a Spark driver's JVM follows its
driver anyway (it exits when the driver's end of its stdin pipe closes).

A command that starts processes calls `stop_like_ctrl_c` first: SIGTERM (a CI job cancelled)
and SIGHUP then unwind like Ctrl-C, and Ctrl-C itself is taken where it came in ignored (a
script's background job, `nohup … &`, where Python leaves SIGINT ignored).

Usage:
    stop_like_ctrl_c()
    subprocess.Popen(argv, preexec_fn=die_with_parent)
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from types import FrameType

__all__ = ["hang_up", "detach_from_terminal", "die_with_parent", "stop_like_ctrl_c"]

_PR_SET_PDEATHSIG = 1
# Loaded once here: between fork and exec the child should call no more than it must.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def detach_from_terminal() -> None:
    """Send everything later written to stdout/stderr (and read from stdin) to /dev/null."""
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def hang_up(signum: int, frame: FrameType | None) -> None:
    """SIGHUP's handler: once, detach from the dead terminal and unwind like Ctrl-C."""
    for number in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)
    detach_from_terminal()
    raise KeyboardInterrupt


def stop_like_ctrl_c() -> None:
    """SIGTERM and SIGHUP unwind like Ctrl-C, and Ctrl-C is taken even where it came in
    ignored, so every process a command started is stopped through its cleanup."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, hang_up)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # Once is enough: further signals (`timeout` and `uv run` both deliver SIGTERM) must not
    # interrupt the cleanup the first one started.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def die_with_parent(parent: int | None = None) -> None:
    """In a child before exec (a `preexec_fn`): killed by the kernel when `parent` (the process
    that started it) dies; at once if it already has."""
    if _LIBC is None:
        return  # not Linux: the parent's own cleanup is all there is
    _LIBC.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)  # the parent died between fork and prctl
