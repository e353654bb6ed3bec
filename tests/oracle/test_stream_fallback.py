"""When the oracle evaluates a query as a stream instead of a batch, and on which state store.

A stateful operator Spark runs only in a stream is evaluated as one stream read to its end;
transformWithState, which Spark runs on RocksDB only, again on RocksDB. Spark itself runs in the
e2e tests (compat's counter_tws cells); here its refusals are the words it raised, as run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import oracle.evaluate as evaluate

# transformWithState in a batch query on 4.2.0, run 29 Nov 2026 (compat's first counter_tws run).
TWS_IN_BATCH = (
    "[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] An error occurred during loading state. "
    "Caused by: org.apache.spark.rpc.RpcEndpointNotFoundException: Cannot find endpoint: "
    "spark://StateStoreCoordinator@127.0.0.1:42581"
)
TWS_ON_HDFS = (
    "[UNSUPPORTED_FEATURE.STORE_BACKEND_NOT_SUPPORTED_FOR_TWS] Store backend "
    "HDFSBackedStateStoreProvider is not supported by TransformWithState operator."
)


def test_a_stateful_operator_that_needs_a_streams_state_store_is_run_as_a_stream() -> None:
    assert evaluate._batch_refused(RuntimeError(TWS_IN_BATCH))
    assert not evaluate._batch_refused(RuntimeError("[DIVIDE_BY_ZERO] Division by zero."))


class _Conf:
    def __init__(self) -> None:
        self.set_to: dict[str, str] = {}

    def set(self, key: str, value: str) -> None:
        self.set_to[key] = value


class _Spark:
    def __init__(self) -> None:
        self.conf = _Conf()


def test_transform_with_state_is_streamed_again_on_rocksdb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spark = _Spark()
    streamed: list[tuple[Path, dict[str, str]]] = []

    def as_stream(spark: Any, query: Any, records: Any, scratch: Path) -> list[dict[str, Any]]:
        streamed.append((scratch, dict(spark.conf.set_to)))
        if not spark.conf.set_to:
            raise RuntimeError(TWS_ON_HDFS)
        return [{"count": 1}]

    monkeypatch.setattr(evaluate, "_as_stream", as_stream)
    assert evaluate._stream_on_its_store(spark, None, [], tmp_path) == [{"count": 1}]
    assert [s.name for s, _ in streamed] == ["hdfs", "rocksdb"]  # a checkpoint each
    assert streamed[1][1][evaluate._PROVIDER].endswith("RocksDBStateStoreProvider")


def test_any_other_stream_failure_is_raised_as_it_came(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def as_stream(*_: Any) -> list[dict[str, Any]]:
        raise RuntimeError("[DIVIDE_BY_ZERO] Division by zero.")

    monkeypatch.setattr(evaluate, "_as_stream", as_stream)
    with pytest.raises(RuntimeError, match="DIVIDE_BY_ZERO"):
        evaluate._stream_on_its_store(_Spark(), None, [], tmp_path)
