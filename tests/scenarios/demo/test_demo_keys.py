"""Keys and lines to commands, and the terminal mode that reads single keys."""

from __future__ import annotations

import os
import pty
import termios

from scenarios.demo.keys import Command, cbreak, command_for_key, command_for_line, read_key


def test_every_documented_key_maps_to_its_command() -> None:
    assert command_for_key("\n") is Command.NEGATIVE_KEY
    assert command_for_key("\r") is Command.NEGATIVE_KEY
    assert [command_for_key(k) for k in "ksrdtq"] == [
        Command.KILL,
        Command.STOP,
        Command.RESTART,
        Command.DELETE_CHECKPOINT,
        Command.RETENTION,
        Command.QUIT,
    ]
    assert command_for_key("K") is Command.KILL
    assert command_for_key("x") is None


def test_plain_lines() -> None:
    assert command_for_line("\n") is Command.NEGATIVE_KEY
    assert command_for_line("enter\n") is Command.NEGATIVE_KEY
    assert command_for_line(" k \n") is Command.KILL
    assert command_for_line("q") is Command.QUIT
    assert command_for_line("kill") is None


def test_cbreak_reads_single_keys_and_restores_the_terminal() -> None:
    controller, terminal = pty.openpty()
    try:
        before = termios.tcgetattr(terminal)
        with os.fdopen(os.dup(terminal), "r") as stream:
            with cbreak(stream):
                assert not termios.tcgetattr(terminal)[3] & termios.ICANON
                os.write(controller, b"k")
                assert read_key(stream, timeout=2.0) == "k"
                assert read_key(stream, timeout=0.05) is None
            assert termios.tcgetattr(terminal) == before
    finally:
        os.close(controller)
        os.close(terminal)
