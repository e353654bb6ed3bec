"""The apps' folders are layers that only look down (docs/architecture.md#the-apps-floors).

Each package below is cut into units: a folder, or a top-level module. Every unit sits on a
floor, and a module imports only its own unit and the floors below it: never a floor above,
never a unit beside it on its own floor (two units on one floor are peers that know nothing of
each other). A room is several top-level modules that form one unit and may read each other,
the way kafka_app's producer is made of small modules. A new folder or top-level module sits on
no floor until it is given one here, so that its place is chosen, not found.

- spark_app, bottom to top: the shared words (errors, offsets), the lines others read, the
  settings, where the app runs (runtime/), our source, the checkpoint reader, the failures
  Spark raises, the query, the commands (reset, supervisor), the command line.
- kafka_app: its top-level modules (the producer's parts and contracts), the embedded broker,
  Apache Kafka, the container, the producer, the command line.
- kafka_app/broker: its errors and settings, storage and wire, groups, handlers, the client
  connection, the server, the embedded broker and its command line.

Also: no module of spark_app imports more than 15 of the project's modules (query/app.py
imported 34 before it was split).

Read from the same import graph as tests/test_import_cycles.py: every import counts, in a
function and under `if TYPE_CHECKING:` too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.test_import_cycles import _graph_of, import_graph

GRAPH = import_graph()
MOST_IMPORTS = 15


@dataclass(frozen=True)
class Layers:
    """A package's floors, bottom first; `rooms` names units made of several modules."""

    package: str
    floors: tuple[tuple[str, ...], ...]
    rooms: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def unit(self, module: str) -> str:
        """The folder or top-level module `module` belongs to (`__init__` for the package)."""
        rest = module.removeprefix(self.package).removeprefix(".")
        name = rest.split(".")[0] if rest else "__init__"
        return next((room for room, names in self.rooms.items() if name in names), name)

    def floor(self, unit: str) -> int | None:
        return next((i for i, units in enumerate(self.floors) if unit in units), None)

    def owns(self, module: str) -> bool:
        return module == self.package or module.startswith(self.package + ".")


SPARK_APP = Layers(
    "spark_app",
    (
        ("__init__", "errors", "offsets"),
        ("lines",),
        ("settings",),
        ("runtime",),
        ("source",),
        ("checkpoint",),
        ("failures",),
        ("query",),
        ("reset", "supervisor"),
        ("cli",),
        ("__main__",),
    ),
)

KAFKA_APP = Layers(
    "kafka_app",
    (
        ("__init__", "the producer's parts"),
        ("broker",),
        ("apache",),
        ("container",),
        ("producer",),
        ("cli",),
        ("__main__",),
    ),
    rooms={
        "the producer's parts": (
            "console",
            "errors",
            "interrupts",
            "kafka_choice",
            "logs",
            "message_line",
            "sent_records",
            "user_records",
            "negative_keys",
            "partitioning",
            "resource",
            "settings",
            "topic_offsets",
            "topic_setup",
        )
    },
)

BROKER = Layers(
    "kafka_app.broker",
    (
        ("errors", "settings"),
        ("storage", "wire"),
        ("groups",),
        ("handlers",),
        ("client",),
        ("server",),
        ("embedded", "cli"),
        ("__init__", "__main__"),
    ),
)

ALL = {layers.package: layers for layers in (SPARK_APP, KAFKA_APP, BROKER)}


def misplaced(layers: Layers, graph: dict[str, set[str]]) -> list[str]:
    """Each import that looks up or sideways, as `importer -> imported (floor a, floor b)`."""
    found = []
    for module, imported in sorted(graph.items()):
        if not layers.owns(module):
            continue
        home = layers.unit(module)
        for target in sorted(imported):
            if not layers.owns(target) or layers.unit(target) == home:
                continue
            here, there = layers.floor(home), layers.floor(layers.unit(target))
            if here is None or there is None or there >= here:
                found.append(f"{module} -> {target} (floor {here}, floor {there})")
    return found


def unplaced(layers: Layers, graph: dict[str, set[str]]) -> list[str]:
    units = {layers.unit(module) for module in graph if layers.owns(module)}
    return sorted(unit for unit in units if layers.floor(unit) is None)


def crowded(graph: dict[str, set[str]], package: str = "spark_app") -> list[str]:
    """Modules of `package` that import more than MOST_IMPORTS of the project's modules."""
    return sorted(
        f"{module}: {len(imported)}"
        for module, imported in graph.items()
        if (module == package or module.startswith(package + ".")) and len(imported) > MOST_IMPORTS
    )


@pytest.mark.parametrize("package", sorted(ALL))
def test_every_folder_and_top_level_module_sits_on_a_floor(package: str) -> None:
    assert unplaced(ALL[package], GRAPH) == []


@pytest.mark.parametrize("package", sorted(ALL))
def test_the_floors_only_look_down(package: str) -> None:
    assert misplaced(ALL[package], GRAPH) == []


def test_no_spark_app_module_imports_more_than_15_of_the_projects_modules() -> None:
    assert crowded(GRAPH) == []
    # The rule reads what it should: the run loop imports several, and is counted.
    assert 5 < len(GRAPH["spark_app.query.app"]) <= MOST_IMPORTS


# --- the rules themselves: they must refuse what they say they refuse --------------------------


TOY = Layers("p", (("base",), ("mid_a", "mid_b"), ("top",)), rooms={"base": ("words", "lines")})


def test_the_layer_rule_refuses_a_look_up_and_a_look_sideways() -> None:
    graph = {
        "p.words": {"p.lines"},  # one room: fine
        "p.mid_a.x": {"p.mid_a.y", "p.words", "p.mid_b.z"},  # its own unit, below, beside
        "p.mid_b.z": {"p.top"},  # above
        "p.top": {"p.mid_a.x", "other.module"},  # below, and outside the package
        "p.new.thing": set(),  # on no floor yet
    }
    assert misplaced(TOY, graph) == [
        "p.mid_a.x -> p.mid_b.z (floor 1, floor 1)",
        "p.mid_b.z -> p.top (floor 1, floor 2)",
    ]
    assert unplaced(TOY, graph) == ["new"]


def test_a_deferred_import_looks_up_all_the_same(tmp_path: Path) -> None:
    # The shape of settings.py -> runtime/class_cache.py: an import inside a function.
    graph = _graph_of(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/base.py": "def cache():\n    from p.top import folder\n    return folder()\n",
            "p/top.py": "from p import base\n",
        },
    )
    assert misplaced(TOY, graph) == ["p.base -> p.top (floor 0, floor 2)"]


def test_the_count_refuses_a_module_with_too_many_imports() -> None:
    graph = {
        "spark_app.query.big": {f"spark_app.m{i}" for i in range(16)},
        "spark_app.query.fine": {f"spark_app.m{i}" for i in range(15)},
        "scenarios.elsewhere": {f"spark_app.m{i}" for i in range(40)},
    }
    assert crowded(graph) == ["spark_app.query.big: 16"]
