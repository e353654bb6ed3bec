"""Spark's refusal of a changed state schema, recognised in its error text and explained.

Spark keeps the schema of every stateful operator's state in the checkpoint
(`state/<op>/<partition>/_metadata/schema`) and compares it with the running query's on start.
A query whose state struct gained a field (our `--state-schema v2` on a v1 checkpoint) fails
with Spark's own error class, for example:

    [STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE] Provided value schema does not match existing
    state value schema. ... Existing value_schema=StructType(StructField(groupState,
    StructType(StructField(count,LongType,true)),true)) and new value_schema=...

Spark checks when it plans the first batch with data, not when the query starts: with nothing
new in Kafka a refused query just waits. The state on disk cannot be read by the new code, so
there is no "continue": either run the code that wrote it, or start the new version on a new
checkpoint beside the old one (blue/green). Spark's error classes for it, and what the
checkpoint stored, are read without Spark in spark_app/checkpoint/state_schema.py.

Usage:
    refusal = find_schema_refusal(str(error))
    if refusal: raise refusal.error(settings.checkpoint.folder)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spark_app.checkpoint.state_schema import REFUSAL_CLASSES
from spark_app.errors import StateSchemaChangedError

__all__ = ["SchemaRefusal", "find_schema_refusal"]

_CLASS = re.compile(r"\[(" + "|".join(REFUSAL_CLASSES) + r")\]")
_SCHEMAS = re.compile(
    r"Existing (?:key|value)_schema=(.*?) and new (?:key|value)_schema=(.*?)\.?$", re.M
)
# transformWithState on Avro names them the other way round (STATE_STORE_INVALID_VALUE_SCHEMA_
# EVOLUTION): "Schema evolution is not possible new value_schema=… and old value_schema=…".
_EVOLUTION = re.compile(r"new value_schema=(.*?) and old value_schema=(.*?)\.?$", re.M)
_FIELD = re.compile(r"StructField\((\w+),")
_TYPED_FIELD = re.compile(r"StructField\((\w+),(\w+),")
# applyInPandasWithState wraps the user's state struct in its own field of this name.
_WRAPPER = "groupState"


@dataclass(frozen=True)
class SchemaRefusal:
    """Spark's error class and, when it named them, the stored and the new state fields."""

    error_class: str
    stored_fields: tuple[str, ...] = ()
    new_fields: tuple[str, ...] = ()

    def difference(self) -> str:
        if not self.stored_fields or not self.new_fields:
            return ""
        return (
            f"; the checkpoint's state has the fields ({', '.join(self.stored_fields)}), "
            f"this code's state ({', '.join(self.new_fields)})"
        )

    def error(self, checkpoint: Path) -> StateSchemaChangedError:
        return StateSchemaChangedError(
            f"Spark refused the checkpoint in {checkpoint}: {self.error_class}{self.difference()}. "
            f"State written by the old code cannot be read by this one. To upgrade, start this "
            f"version on a new --checkpoint-dir with --starting-offsets latest beside the old one "
            f"(blue/green), then stop the old one; or run the old code on this checkpoint again."
        )


def _fields(struct_text: str) -> tuple[str, ...]:
    return tuple(name for name in _FIELD.findall(struct_text) if name != _WRAPPER)


def _typed_fields(struct_text: str) -> tuple[str, ...]:
    return tuple(
        f"{name} {kind.removesuffix('Type').lower()}"
        for name, kind in _TYPED_FIELD.findall(struct_text)
        if name != _WRAPPER
    )


def find_schema_refusal(text: str) -> SchemaRefusal | None:
    """Spark's state schema refusal in an error's text, or None when the error is another one."""
    found = _CLASS.search(text)
    if found is None:
        return None
    schemas = _SCHEMAS.search(text)
    if schemas is not None:
        return SchemaRefusal(found.group(1), _fields(schemas.group(1)), _fields(schemas.group(2)))
    evolved = _EVOLUTION.search(text)
    if evolved is not None:
        # With types: a narrowed field keeps its name.
        return SchemaRefusal(
            found.group(1), _typed_fields(evolved.group(2)), _typed_fields(evolved.group(1))
        )
    return SchemaRefusal(found.group(1))
