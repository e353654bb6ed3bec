"""One step of a scenario's story: the question asked before it runs, what to watch, the answer.

A scenario tells its story as steps, each a `Step` with its words, and runs each step's actions
and checks inside it:

    with stage.step(Step("Kill the Spark app", happens="kill -9 …", question="…", answer="…")):
        stage.app.kill()
        stage.expect(check(...))   # this check belongs to the step

A step is told in three parts, so a learner predicts before looking (`asked`, `running`,
`revealed`):
- before it runs: its title and its question, nothing that gives the answer away;
- while it runs: what happens and what to watch on the screen meanwhile (the live lines);
- after it ran, its checks on screen: the answer, the rule behind it (`why`) and what to do
  about it in a real job (`production`).

`giveaway` names the words that would give the answer away: a fast test fails when the title or
the question holds one, or anything shown before it (tests/scenarios/report/test_spoilers.py).
`checks` names the checks whose outcome the answer states: the stage fails a step whose answer
claims a check it never made. The engine carries a step to whoever listens
(scenarios/engine/events.py); the report decides how it looks.

Usage: `Step("Restart the app", happens="…", question="Will it fail?", answer="Yes: …",
             giveaway=("fails",), checks=("the restart fails",))`
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Step"]


@dataclass(frozen=True)
class Step:
    """One narrated step of a scenario, and the words that teach it."""

    title: str
    happens: str
    watch: str = ""
    why: str = ""
    production: str = ""
    question: str = ""
    answer: str = ""
    # Words that would give the answer away before Enter, held off the title, the question and
    # all shown before them. None: not said yet (a fast test asks every catalog step to say).
    giveaway: tuple[str, ...] | None = None
    # The names of the checks whose outcome `answer` states: each must be made in the step.
    # None: not said yet (a fast test asks every catalog step to say); (): an answer that
    # explains rather than claims an outcome.
    checks: tuple[str, ...] | None = None

    def asked(self) -> list[tuple[str, str]]:
        """What is shown before the step runs, under its title: the question alone."""
        return _labelled([("Question", self.question)])

    def running(self) -> list[tuple[str, str]]:
        """What is shown once the step starts running: what happens, and what to watch."""
        return _labelled([("What happens", self.happens), ("Watch", self.watch)])

    def revealed(self) -> list[tuple[str, str]]:
        """What is shown once the step's checks are on screen."""
        return _labelled(
            [("Answer", self.answer), ("Why", self.why), ("In production", self.production)]
        )

    def sections(self) -> list[tuple[str, str]]:
        return self.asked() + self.running() + self.revealed()

    def before_enter(self) -> str:
        """Everything a learner reads before the step runs: where no giveaway may stand."""
        return f"{self.title}\n{self.question}"


def _labelled(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(label, text) for label, text in pairs if text]
