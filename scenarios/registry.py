"""The list of scenarios: each catalog module declares a `SCENARIO`; this finds them.

The registry stands above the catalog: it reads the catalog's list (`SCENARIO_MODULES`, whose
order is the order of `run all`), and the run layer, the report's documents and the command
line read the registry. A scenario module imports none of this.

Adding a scenario: write `scenarios/catalog/<name>.py` with `SCENARIO = Scenario(...)` (from
scenarios/engine/scenario.py) and a `run(stage)` function, then add its module name to
`SCENARIO_MODULES` in `scenarios/catalog/__init__.py`.

Usage: `for scenario in all_scenarios(): print(scenario.name, scenario.title)`
"""

from __future__ import annotations

import importlib

from scenarios.catalog import SCENARIO_MODULES
from scenarios.engine.scenario import Scenario
from scenarios.errors import UnknownScenario

__all__ = ["SCENARIO_MODULES", "all_scenarios", "find_scenarios"]


def all_scenarios() -> list[Scenario]:
    return [importlib.import_module(module).SCENARIO for module in SCENARIO_MODULES]


def find_scenarios(names: list[str]) -> list[Scenario]:
    """The scenarios named (or all of them for "all"), in the order given."""
    known = {s.name: s for s in all_scenarios()}
    if names == ["all"] or "all" in names:
        return list(known.values())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownScenario(
            f"no scenario named {', '.join(unknown)}; known: {', '.join(known)} (or all)"
        )
    return [known[n] for n in names]
