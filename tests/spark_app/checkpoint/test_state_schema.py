"""Spark's refusal of a changed state schema, from the text Spark 4.3 really raised.

`data/state_schema_refused.txt` is the start of the StreamingQueryException's message captured
when `python -m spark_app --state-schema v2` was started on a checkpoint written with v1;
`data/state_schema_v1.bin` and `_v2.bin` are the `state/0/0/_metadata/schema` files Spark wrote
for the two schemas.
"""

from __future__ import annotations

from pathlib import Path

from checkpoint_stores import CheckpointPlace
from spark_app.errors import CheckpointError, StateSchemaChangedError, unwrap
from spark_app.failures.state_schema import find_schema_refusal
from spark_app.settings import SparkAppSettings

REFUSED = (Path(__file__).parents[1] / "data" / "state_schema_refused.txt").read_text()


def test_the_refusal_names_spark_error_class_and_both_schemas() -> None:
    refusal = find_schema_refusal(REFUSED)
    assert refusal is not None
    assert refusal.error_class == "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"
    assert (refusal.stored_fields, refusal.new_fields) == (("count",), ("count", "last_update_ms"))


def test_the_app_explains_it_as_an_unusable_checkpoint_with_the_way_out() -> None:
    from spark_app.failures import explain_failure

    error = explain_failure(
        RuntimeError(REFUSED), SparkAppSettings(checkpoint=CheckpointPlace(folder=Path("cp-a")))
    )
    assert isinstance(error, StateSchemaChangedError) and isinstance(error, CheckpointError)
    line = str(error)
    assert line.startswith(
        "CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED: Spark refused the "
        "checkpoint in cp-a: STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"
    )
    assert "\n" not in line
    assert "new --checkpoint-dir" in line and "blue/green" in line


def test_the_longer_token_survives_unwrapping() -> None:
    from spark_app.failures import explain_failure

    error = explain_failure(RuntimeError(REFUSED), SparkAppSettings())
    wrapped = RuntimeError(f"Traceback ...\nspark_app.errors.StateSchemaChangedError: {error}\n")
    assert type(unwrap(wrapped)) is StateSchemaChangedError


def test_other_errors_are_not_schema_refusals() -> None:
    assert (
        find_schema_refusal("[STREAM_FAILED] ... [KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE]")
        is None
    )
    bare = find_schema_refusal("[STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE] Provided key schema ...")
    assert bare is not None and bare.stored_fields == () and "fields" not in bare.difference()


def _checkpoint_with_schema(root: Path, schema_file: str) -> Path:
    """A checkpoint holding one batch and the state schema file Spark 4.3 wrote (captured)."""
    from tests.spark_app.checkpoint.test_reader import make_checkpoint

    checkpoint = root / "cp"
    checkpoint.mkdir(parents=True)
    make_checkpoint(checkpoint, [50], committed=1)
    target = checkpoint / "state" / "0" / "0" / "_metadata" / "schema"
    target.parent.mkdir(parents=True)
    target.write_bytes((Path(__file__).parents[1] / "data" / schema_file).read_bytes())
    return checkpoint


def test_the_stored_state_fields_are_read_without_spark(tmp_path: Path) -> None:
    from spark_app.checkpoint.state_schema import schema_version, stored_state_fields

    v1 = _checkpoint_with_schema(tmp_path / "a", "state_schema_v1.bin")
    v2 = _checkpoint_with_schema(tmp_path / "b", "state_schema_v2.bin")
    assert stored_state_fields(v1) == ("count",) and schema_version(("count",)) == "v1"
    assert stored_state_fields(v2) == ("count", "last_update_ms")
    assert schema_version(("count", "last_update_ms")) == "v2"
    assert schema_version(("total",)) is None
    assert stored_state_fields(tmp_path / "nowhere") is None


def test_inspect_says_which_state_schema_a_checkpoint_needs(tmp_path: Path, free_port: int) -> None:
    from spark_app.checkpoint.inspect import inspect_checkpoint, render_text

    checkpoint = _checkpoint_with_schema(tmp_path / "a", "state_schema_v1.bin")
    report = inspect_checkpoint(checkpoint, f"127.0.0.1:{free_port}", with_state=False)
    assert (report.state_fields, report.state_schema) == (["count"], "v1")
    assert (
        "state schema: (count), written with --state-schema v1; Spark refuses a restart with "
        "another --state-schema"
    ) in "\n".join(render_text(report))


def test_the_state_keys_columns_are_read_in_the_order_the_state_binds_them(tmp_path: Path) -> None:
    """The schema file as Spark wrote it for the counter (key first, then the value holding
    groupState): the key's columns, and the state's fields from the same file."""
    from spark_app.checkpoint.state_schema import key_columns, stored_state_fields

    checkpoint = _checkpoint_with_schema(tmp_path / "a", "state_schema_v1.bin")
    assert key_columns(checkpoint) == ("stream",)
    assert stored_state_fields(checkpoint) == ("count",)
    assert key_columns(tmp_path / "none") == ()
