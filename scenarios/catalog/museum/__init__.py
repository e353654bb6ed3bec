"""The museum of Spark's known checkpoint bugs: an exhibit per module, run by `known-bugs`.

Each module holds `EXHIBIT = Exhibit(...)` (exhibit.py) for one ticket of the table in
spark_app/lines/known_bug_table.py, which says what a user sees, the workaround and each Spark line's
outcome. The exhibits live under the catalog because they are stories told with a Stage like
every scenario; they are one scenario's cases (scenarios/catalog/known_bugs.py), not scenarios
of their own, so that they share one Kafka start. The order here is the order they run in.
"""

from __future__ import annotations

import importlib

from scenarios.catalog.museum.exhibit import Exhibit

__all__ = ["EXHIBIT_MODULES", "Exhibit", "all_exhibits"]

EXHIBIT_MODULES = (
    "scenarios.catalog.museum.spark_12693",
    "scenarios.catalog.museum.spark_55271",
    "scenarios.catalog.museum.spark_57438",
    "scenarios.catalog.museum.spark_55058",
    "scenarios.catalog.museum.spark_54307",
    "scenarios.catalog.museum.spark_53103",
    "scenarios.catalog.museum.spark_53942",
    "scenarios.catalog.museum.spark_51972",
    "scenarios.catalog.museum.spark_51988",
    "scenarios.catalog.museum.spark_56216",
    "scenarios.catalog.museum.spark_51682",
    "scenarios.catalog.museum.spark_53560",
    "scenarios.catalog.museum.spark_55561",
    "scenarios.catalog.museum.spark_56400",
    "scenarios.catalog.museum.spark_57489",
    "scenarios.catalog.museum.spark_53743",
    "scenarios.catalog.museum.spark_53069",
)


def all_exhibits() -> list[Exhibit]:
    return [importlib.import_module(module).EXHIBIT for module in EXHIBIT_MODULES]
