"""The count's state schemas, and the one a checkpoint stored, read without Spark.

Spark keeps the schema of every stateful operator's state in the checkpoint
(`state/<op>/<partition>/_metadata/schema`) and refuses a restart whose state struct does not
fit it, with one of `REFUSAL_CLASSES` (spark_app/failures/state_schema.py names that refusal).
`STATE_SCHEMAS` is the struct each `--state-schema` gives the count; `stored_state_fields` reads
the stored schema without Spark, so `inspect` can say which `--state-schema` a checkpoint was
written with before a restart is refused.

Usage:
    stored_state_fields(Path("checkpoints"))  # ("count",)
    key_columns(Path("checkpoints"))          # ("key",): the state key's columns, in order
    schema_version(("count",))                # "v1"
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "key_columns",
    "stored_state_fields",
    "schema_version",
    "STATE_SCHEMAS",
    "REFUSAL_CLASSES",
]

# The count's state per `--state-schema` (DDL). applyInPandasWithState refuses a checkpoint
# written with another one. transformWithState on Avro-encoded state accepts v1 -> v2 (a field
# added); the last two change v2 as Spark's schema evolution forbids: a field renamed
# (last_update_ms -> updated_ms) and a field narrowed (count bigint -> int).
STATE_SCHEMAS: dict[str, str] = {
    "v1": "count bigint",
    "v2": "count bigint, last_update_ms bigint",
    "v2-renamed": "count bigint, updated_ms bigint",
    "v2-narrowed": "count int, last_update_ms bigint",
}

# Spark 4's error classes for a state schema that does not fit the checkpoint (the refusal is
# named by spark_app/failures/state_schema.py; the upgrade scenario expects the first).
REFUSAL_CLASSES = (
    "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE",
    "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
    "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION",
    "STATE_STORE_VALUE_SCHEMA_EVOLUTION_THRESHOLD_EXCEEDED",
    "STATE_STORE_INVALID_CONFIG_AFTER_RESTART",
)
# applyInPandasWithState wraps the user's state struct in its own field of this name.
_WRAPPER = "groupState"


def stored_state_fields(checkpoint: Path) -> tuple[str, ...] | None:
    """The fields of the count's state as the checkpoint stored them; None if there is no schema.

    The schema file (`state/0/0/_metadata/schema`) frames the key and the value schema as JSON
    strings between binary lengths; the value schema is the one holding `groupState`.
    """
    for schema in _stored_structs(checkpoint):
        for field in schema.get("fields", []):
            if field.get("name") == _WRAPPER and isinstance(field.get("type"), dict):
                return tuple(f["name"] for f in field["type"].get("fields", []))
    return None


def key_columns(checkpoint: Path) -> tuple[str, ...]:
    """The columns of the first stateful operator's state key, in the order the state binds
    them (the schema file's first struct); () if there is no schema."""
    for schema in _stored_structs(checkpoint):
        return tuple(f["name"] for f in schema.get("fields", []))
    return ()


def _stored_structs(checkpoint: Path) -> Iterator[dict]:
    """The structs of `state/0/0/_metadata/schema`, in the file's order (the key's first), each
    decoded only when asked for."""
    path = checkpoint / "state" / "0" / "0" / "_metadata" / "schema"
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r'\{"type":"struct"', text)):
        try:
            schema, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        yield schema


def schema_version(fields: tuple[str, ...]) -> str | None:
    """Which `--state-schema` has exactly these fields (None: written by other code)."""
    for version, ddl in STATE_SCHEMAS.items():
        if tuple(part.split()[0] for part in ddl.split(",")) == fields:
            return version
    return None
