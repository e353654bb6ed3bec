"""A stop signal becomes KeyboardInterrupt, never inside a held block (the producer's line)."""

from __future__ import annotations

import os
import signal

import pytest

from kafka_app.interrupts import held, installed


def test_a_sigterm_inside_a_held_block_is_raised_when_the_block_ends() -> None:
    done = []
    with installed(), pytest.raises(KeyboardInterrupt):
        with held():
            os.kill(os.getpid(), signal.SIGTERM)
            done.append("the rest of the block")
        done.append("after the block")
    assert done == ["the rest of the block"]


def test_a_sigterm_outside_is_raised_at_once_and_the_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with installed(), pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        pytest.fail("the stop was not raised")
    assert signal.getsignal(signal.SIGTERM) is before
