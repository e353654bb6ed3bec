"""An exhibit of the museum: a known Spark bug from the table and how the museum shows it.

An exhibit either runs (`run(stage)`: it reproduces the bug on the stage's Kafka and checks the
outcome against the table) or points (`run` is None: another scenario shows it already, named
in the table's `shown_by`, and the museum names the bug and sends the user there).

Usage: `EXHIBIT = Exhibit(bug_named("SPARK-55058"), run)` in an exhibit's module
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from spark_app.lines.known_bug_table import KnownBug

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["Exhibit"]


@dataclass(frozen=True)
class Exhibit:
    bug: KnownBug
    run: Callable[[Stage], None] | None = None
    # It cuts the network between the app and Kafka (stage.network): the museum's Kafka is then
    # started behind the proxy, for every exhibit of the run.
    behind_proxy: bool = False
    # Run only when named (`--exhibits TICKET`), not in the museum's default run: that run is
    # part of `run all --fast`, which keeps to its 40 minutes.
    on_request: bool = False

    @property
    def name(self) -> str:
        return self.bug.ticket

    @property
    def listed(self) -> str:
        """The exhibit in a line of `scenarios list`."""
        where = f" (shown by {self.bug.shown_by})" if self.run is None else ""
        if self.bug.alias_of:  # its title names the ticket it is an alias of
            where = f" (run as {self.bug.alias_of}, shown by {self.bug.shown_by})"
        if self.on_request:
            where = f" (on request: --exhibits {self.name})"
        return f"{self.bug.title}{where}"
