"""A user's own query, brought as a plain Python module (`--query FILE.py`): load it, check it.

A query module holds three names (docs/your-query.md):

    OUTPUT_MODE = "update"          # "append", "update" or "complete"
    KEY = ["bucket"]                # the columns naming one result row
    def build(records): ...         # records: the Kafka source's rows -> the streaming DataFrame

The app loads the file by its path, so it may live anywhere. What can be told without Spark is
checked here, before anything starts: the file imports, `build` is a function, OUTPUT_MODE is a
mode, KEY is a list of column names (required in update and complete mode; in append mode,
where every column compares, it may be left out). Each problem is one line naming the file and
what to change (QueryModuleError, exit code 2). What needs Spark (a batch DataFrame returned, a
KEY column the result lacks, an output mode Spark refuses) is query_check.py's.

The module's functions run in Spark's Python workers too (an applyInPandasWithState function):
cloudpickle is told to pickle the module by value, since a worker cannot import a file by path.

Usage:
    query = load_query(Path("queries/window_count.py"))
    query.OUTPUT_MODE, query.KEY, query.build(records)
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from spark_app.errors import QueryModuleError

__all__ = ["OUTPUT_MODES", "UserQuery", "load_query"]

OUTPUT_MODES = ("append", "update", "complete")


@dataclass(frozen=True)
class UserQuery:
    """A loaded query module: its file, output mode, KEY and build function."""

    path: Path
    OUTPUT_MODE: str
    KEY: tuple[str, ...]
    build_function: Callable[[Any], Any]
    module: ModuleType

    def build(self, records: Any) -> Any:
        return self.build_function(records)

    @property
    def name(self) -> str:
        return self.path.stem


def _refuse(path: Path, what: str) -> QueryModuleError:
    return QueryModuleError(f"{path}: {what}")


def _import(path: Path) -> ModuleType:
    if not path.is_file():
        raise _refuse(
            path, "no such file: give the path of a Python module (e.g. queries/dedup.py)"
        )
    name = f"user_query_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _refuse(path, "not a Python module: give a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass or a pickle of the module's looks it up by name
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        where = traceback.extract_tb(error.__traceback__)[-1]
        raise _refuse(
            path,
            f"does not import: {type(error).__name__}: {error} (line {where.lineno}); fix it "
            f"and run again",
        ) from error
    return module


def _by_value(module: ModuleType) -> None:
    """Spark's workers cannot import a file by path: ship the module's functions whole."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(module)


def load_query(path: Path) -> UserQuery:
    """The query module at `path`, checked as far as can be without Spark."""
    module = _import(path)
    build = getattr(module, "build", None)
    if not callable(build):
        raise _refuse(
            path,
            "has no build(records) function: define one that takes the Kafka source's records "
            "and returns the streaming DataFrame to write",
        )
    mode = getattr(module, "OUTPUT_MODE", None)
    if mode not in OUTPUT_MODES:
        raise _refuse(
            path,
            f"OUTPUT_MODE is {mode!r}: set it to one of {', '.join(repr(m) for m in OUTPUT_MODES)}",
        )
    key = getattr(module, "KEY", None)
    if key is None and mode != "append":
        raise _refuse(
            path,
            f"has no KEY: in {mode} mode the app must know which columns name one result row; "
            f'set KEY = ["column", ...]',
        )
    if key is not None and (
        isinstance(key, str) or not all(isinstance(c, str) for c in key) or not key
    ):
        raise _refuse(path, f'KEY is {key!r}: set it to a list of column names, e.g. ["bucket"]')
    _by_value(module)
    return UserQuery(path, mode, tuple(key or ()), build, module)
