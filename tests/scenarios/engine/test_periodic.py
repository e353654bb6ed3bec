"""The samplers' shared thread: paced, stopped at once, idempotent; memory read from /proc."""

from __future__ import annotations

import os
import time

from scenarios.engine.observers.memory import RssSampler
from scenarios.engine.observers.periodic import PeriodicSampler


class Counter(PeriodicSampler):
    def __init__(self) -> None:
        super().__init__(interval=0.05, name="counter")
        self.calls = 0

    def sample(self) -> None:
        self.calls += 1


def test_samples_are_paced_and_a_stop_ends_them_at_once() -> None:
    with Counter() as counter:
        time.sleep(0.5)
        counter.start()  # a second start adds no second thread
    seen = counter.calls
    assert 5 <= seen <= 12
    started = time.monotonic()
    counter.stop()  # idempotent
    time.sleep(0.2)
    assert counter.calls == seen and time.monotonic() - started < 1


def test_the_memory_sampler_reads_this_process_tree() -> None:
    with RssSampler(os.getpid(), interval=0.05) as rss:
        time.sleep(0.3)
    assert rss.samples and all(size > 10_000_000 for _, size in rss.samples)
