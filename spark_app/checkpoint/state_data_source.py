"""The count's state read through Spark's State Data Source (`inspect --state-source`).

Spark 4 reads a checkpoint's state with a batch query: `format("state-metadata")` names the
stateful operator and the batches its state covers; `format("statestore")` returns the state
rows at a batch (`batchId`, default the last committed); with `readChangeFeed` it returns what
each batch changed. transformWithState keeps each state variable apart, so its reads name one
(`stateVarName`). This module asks all three and adds what the files say without Spark: the
store's kind (the provider pinned in `offsets/<N>`), the checkpoint format (`commits/<N>` is
`v2`, with the state file ids, under format 2; the format is NOT pinned in the offsets) and
whether changelogs are written, plus the files the next batch loads its state from and, under
format 2, the files of attempts no commit names.

Spark's reader takes the provider from the checkpoint but the format from the session, so the
reading session is opened at the format the commit log shows (reader_settings). A read Spark
refuses (Spark 4.0 and format 2; RocksDB without changelogs has no change feed) is reported as
a note in Spark's words.

transformWithState with a TTL or timers (`--state-ttl-sec`, `--idle-timer-sec`) has more to
read: the operator's time mode and state variables (from `state-metadata`'s
operatorProperties), each TTL'd variable's value with its `ttlExpirationMs` and its change
feed (an `update` per batch with messages, a `delete` when Spark evicted it), and the timers
registered at the batch (`readRegisteredTimers`).

It starts Spark (tens of seconds), so inspect runs it only when asked; the file reading of
inspect stays as it is, beside it.

Usage:
    layout = store_layout(Path("checkpoints"))            # no Spark
    report = read_state(Path("checkpoints"), Path("log"))  # starts Spark
    print("\n".join(report.lines()))
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spark_app.checkpoint.reader import read_log_file
from spark_app.checkpoint.torn import torn_file_error
from spark_app.runtime.state_store import PROVIDER_CONF, store_kind

if TYPE_CHECKING:
    from spark_app.settings import SparkAppSettings

__all__ = [
    "reader_session",
    "StoreLayout",
    "BatchChange",
    "TtlChange",
    "StateReport",
    "store_layout",
    "files_to_load",
    "operator_properties",
    "variables_of",
    "ttl_value",
    "committed_ids",
    "uncommitted_files",
    "commit_format",
    "read_state",
    "count_in",
    "statestore_options",
    "reader_settings",
]

# How many of the last batches the change feed shows.
CHANGE_BATCHES = 10
_VERSIONED = re.compile(r"^(\d+)(?:_([0-9a-f-]{36}))?\.(delta|snapshot|zip|changelog)$")


@dataclass(frozen=True)
class StoreLayout:
    """What the checkpoint's files say about its state store, read without Spark."""

    kind: str | None = None  # hdfs | rocksdb, from the provider pinned in offsets/<N>
    provider_class: str | None = None
    format_version: int = 1  # 2 when commits/<N> is "v2" (stateUniqueIds)
    changelog: bool = False  # <v>.changelog files: RocksDB with changelog checkpointing
    state_ids: list[str] = field(default_factory=list)  # format 2: the last commit's file ids
    next_batch: int | None = None
    next_files: list[str] = field(default_factory=list)  # what the next batch loads
    uncommitted_files: list[str] = field(default_factory=list)  # format 2: retried attempts


@dataclass(frozen=True)
class BatchChange:
    """One row of the change feed: what a batch did to the count."""

    batch_id: int
    change_type: str
    count: int | None


@dataclass(frozen=True)
class TtlChange:
    """One row of a TTL'd variable's change feed: set (and until when), or evicted."""

    batch_id: int
    variable: str
    change_type: str
    expires_ms: int | None


@dataclass(frozen=True)
class StateReport:
    """The State Data Source's answers, with the layout from the files."""

    layout: StoreLayout
    operator: str | None = None
    min_batch: int | None = None
    max_batch: int | None = None
    count: int | None = None
    count_batch: int | None = None
    changes: list[BatchChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # transformWithState: its time mode, its variables ({"name", "type", "ttl"}), each TTL'd
    # variable at `count_batch` ({"value": …, "expires_ms": …}, None: no row) and its change
    # feed, and the timers registered after the last committed batch (epoch ms).
    time_mode: str | None = None
    variables: list[dict[str, Any]] = field(default_factory=list)
    ttl_values: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    ttl_changes: list[TtlChange] = field(default_factory=list)
    timers: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """One fact per line, for inspect's text output."""
        lay = self.layout
        store = f"{lay.kind or lay.provider_class or 'unknown'}"
        if lay.kind == "rocksdb":
            store += ", changelog checkpointing" if lay.changelog else ", snapshot every batch"
        out = [
            f"state store: {store}; checkpoint format {lay.format_version}"
            + (f" (state file ids {', '.join(lay.state_ids)})" if lay.state_ids else "")
        ]
        if self.operator is not None:
            out.append(
                f"stateful operator: {self.operator}, state for batches "
                f"{self.min_batch}..{self.max_batch}"
            )
        if self.count is not None:
            out.append(f"count in state after batch {self.count_batch}: {self.count}")
        if lay.next_batch is not None:
            out.append(
                f"batch {lay.next_batch} loads state version {lay.next_batch} from "
                f"{', '.join(lay.next_files) or '(no state file yet)'}"
            )
        if lay.uncommitted_files:
            out.append(
                f"left by attempts no commit names (not loaded): {', '.join(lay.uncommitted_files)}"
            )
        out.extend(f"batch {c.batch_id}: {c.change_type} count -> {c.count}" for c in self.changes)
        out.extend(self._time_lines())
        out.extend(self.notes)
        return out

    def _time_lines(self) -> list[str]:
        """transformWithState's variables, TTL'd values and timers, when it has any."""
        if not self.variables:
            return []
        shown = ", ".join(
            f"{v['name']} ({v['type']}{', TTL' if v['ttl'] else ''})" for v in self.variables
        )
        out = [f"time mode {self.time_mode}; state variables: {shown}"]
        for name, value in self.ttl_values.items():
            out.append(
                f"{name} after batch {self.count_batch}: "
                + (
                    f"{value['value']}, expires at {value['expires_ms']} (ttlExpirationMs)"
                    if value
                    else "no value (expired and evicted, or never set)"
                )
            )
        out.extend(
            f"batch {c.batch_id}: {c.change_type} {c.variable}"
            + (
                f", expires at {c.expires_ms}"
                if c.expires_ms is not None
                else " (evicted: its TTL had passed)"
                if c.change_type == "delete"
                else ""
            )
            for c in self.ttl_changes
        )
        if self.timers is not None:
            out.append(
                f"timers registered after batch {self.max_batch}: "
                + (", ".join(str(t) for t in self.timers) or "none")
            )
        return out


def _last(folder: Path) -> int | None:
    return max((int(p.name) for p in folder.glob("[0-9]*") if p.name.isdigit()), default=None)


def _meta_line(path: Path) -> dict[str, Any]:
    """The JSON object on the line after the version of one of Spark's log files."""
    _, lines = read_log_file(path)
    text = next((line for line in lines if line.strip()), "{}")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as err:
        raise torn_file_error(
            path, f"holds a line that is not JSON ({text[:40]!r}), as if cut short"
        ) from err
    return meta if isinstance(meta, dict) else {}


def _pinned_conf(path: Path) -> dict[str, str]:
    """The confs pinned in the newest offsets/<N> (its first JSON line); any source's offsets."""
    last = _last(path / "offsets")
    if last is None:
        return {}
    meta = _meta_line(path / "offsets" / str(last))
    return {str(k): str(v) for k, v in (meta.get("conf") or {}).items()}


def commit_format(path: Path) -> tuple[int, list[str]]:
    """The commit log's format (1 or 2: the checkpoint format that wrote it) and, for 2, the
    last commit's state file ids; (1, []) before the first commit."""
    last = _last(path / "commits")
    if last is None:
        return 1, []
    version, _ = read_log_file(path / "commits" / str(last))
    return int(version[1:]), sorted(committed_ids(path).get(last + 1, ()))


def committed_ids(path: Path) -> dict[int, set[str]]:
    """Format 2: the state file ids each retained `commits/<N>` committed, by state version
    (N + 1); empty under format 1."""
    ids: dict[int, set[str]] = {}
    for batch in sorted(int(p.name) for p in (path / "commits").glob("[0-9]*") if p.name.isdigit()):
        meta = _meta_line(path / "commits" / str(batch))
        found = {
            i for op in (meta.get("stateUniqueIds") or {}).values() for part in op for i in part
        }
        if found:
            ids[batch + 1] = found
    return ids


def _versioned_files(partition_dir: Path) -> Iterator[tuple[int, str | None, str, str]]:
    """(version, file id or None, kind, name) of each state file of a partition."""
    for item in sorted(partition_dir.iterdir()) if partition_dir.is_dir() else ():
        match = _VERSIONED.match(item.name)
        if match:
            yield int(match.group(1)), match.group(2), match.group(3), item.name


def uncommitted_files(partition_dir: Path, committed: Mapping[int, set[str]]) -> list[str]:
    """Format 2: files of an attempt no commit names (a batch retried after a crash leaves
    its first attempt's files; the committed one is loaded)."""
    return [
        name
        for v, file_id, _, name in _versioned_files(partition_dir)
        if file_id is not None and v in committed and file_id not in committed[v]
    ]


def files_to_load(
    partition_dir: Path, version: int, committed: Mapping[int, set[str]] | None = None
) -> list[str]:
    """The files a store loads for state `version` (batch version - 1): the newest snapshot at
    or below it, then each delta or changelog after it. Format 2 names them `<v>_<id>`; where
    a commit names the version's id, only that attempt's file counts."""
    committed = committed or {}
    found: dict[int, dict[str, str]] = {}
    for v, file_id, kind, name in _versioned_files(partition_dir):
        if file_id is None or v not in committed or file_id in committed[v]:
            found.setdefault(v, {})[kind] = name
    snapshots = [
        v for v, kinds in found.items() if v <= version and kinds.keys() & {"snapshot", "zip"}
    ]
    base = max(snapshots, default=0)
    files = [found[base].get("snapshot") or found[base]["zip"]] if base else []
    for v in range(base + 1, version + 1):
        kinds = found.get(v, {})
        step = kinds.get("delta") or kinds.get("changelog")
        files.append(step or f"{v}.(missing)")
    return files


def store_layout(path: Path) -> StoreLayout:
    """Read the store's kind, format and next load from the files (no Spark)."""
    provider = _pinned_conf(path).get(PROVIDER_CONF)
    last_committed = _last(path / "commits")
    format_version, ids = commit_format(path)
    committed = committed_ids(path)
    partition = path / "state" / "0" / "0"
    changelog = partition.is_dir() and any(
        p.name.endswith(".changelog") for p in partition.iterdir()
    )
    next_batch = None if last_committed is None else last_committed + 1
    # Batch N+1 (a pending one is replayed) loads state version N+1, the state batch N left.
    files = files_to_load(partition, next_batch, committed) if next_batch is not None else []
    return StoreLayout(
        kind=store_kind(provider),
        provider_class=provider,
        format_version=format_version,
        changelog=bool(changelog),
        state_ids=ids,
        next_batch=next_batch,
        next_files=files,
        uncommitted_files=uncommitted_files(partition, committed),
    )


def count_in(value: object) -> int | None:
    """The count in a state value row as a dict. applyInPandasWithState nests it in
    `groupState`; transformWithState's `count` variable holds it directly."""
    if isinstance(value, dict):
        if isinstance(value.get("count"), int):
            return int(value["count"])
        for inner in value.values():
            found = count_in(inner)
            if found is not None:
                return found
    return None


def _first_line(error: Exception) -> str:
    """Spark's condition line of an error (the one with `[CLASS]`), without Py4J's prefix."""
    lines = [x.strip().lstrip(": ") for x in str(error).splitlines() if x.strip()]
    line = next(
        (x for x in lines if "[" in x and "]" in x and not x.startswith("at ")),
        lines[0] if lines else type(error).__name__,
    )
    return line[:400]


def statestore_options(path: Path) -> dict[str, str]:
    """The `statestore` options the count needs: transformWithState (its operator metadata
    v2 is on disk) keeps the count in the state variable `count` (counter_tws.STATE_VARIABLE),
    read by name."""
    tws = (path / "state" / "0" / "_metadata" / "v2").is_dir()
    return {"stateVarName": "count"} if tws else {}


def reader_settings(path: Path, log_dir: Path) -> SparkAppSettings:
    """A small session for reading, on the store and format that wrote the checkpoint.

    The format matters: it is not pinned in the offsets, and the State Data Source (4.3.0)
    takes it from the session, so on a format 2 checkpoint a session left at format 1 looks
    for `1.changelog` and fails with CANNOT_LOAD_STATE_STORE.CANNOT_READ_STREAMING_STATE_FILE.
    """
    from checkpoint_stores import CheckpointPlace
    from spark_app.runtime.state_store import as_pinned
    from spark_app.settings import SparkAppSettings

    # source="python": reading state needs no Kafka source, so the session loads no connector
    # jars (the version matrix met `inspect` failing on 4.3.0, whose connector is not served).
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=path),
        log_dir=log_dir,
        master="local[1]",
        checkpoint_format=commit_format(path)[0],
        source="python",
    )
    return as_pinned(settings, _pinned_conf(path))


@contextmanager
def reader_session(path: Path, log_dir: Path = Path("log")) -> Iterator[Any]:
    """A Spark session set up to read the checkpoint at `path` (its store, its format)."""
    from spark_app.runtime.session import SparkSessionResource

    with SparkSessionResource(reader_settings(path, log_dir)) as spark:
        # Spark's StateStoreCoordinator is made with the session's streaming query manager; the
        # State Data Source of PySpark 4.2.0 asks for it and fails without (RpcEndpointNotFound).
        spark.streams  # noqa: B018
        yield spark


def read_state(path: Path, log_dir: Path = Path("log"), batch: int | None = None) -> StateReport:
    """Start Spark and read the checkpoint's state through the State Data Source: the count
    after `batch` (None: the last committed one) and the change feed of the last batches."""
    with reader_session(path, log_dir) as spark:
        return _ask_spark(spark, str(path.resolve()), store_layout(path), batch)


def _collect(frame: Callable[[], Any], what: str, notes: list[str]) -> list[Any] | None:
    """The rows of one State Data Source read, or None with Spark's refusal added to `notes`:
    the refusal is the answer (e.g. Spark 4.0 cannot read format 2 state, RocksDB without
    changelogs has no change feed), so it is reported in Spark's words, never hidden."""
    try:
        return frame().collect()
    except Exception as err:  # Py4J and PySpark errors alike; the message is what matters
        notes.append(f"{what} not readable: {_first_line(err)}")
        return None


def _ask_spark(
    spark: Any, location: str, layout: StoreLayout, batch: int | None = None
) -> StateReport:
    notes: list[str] = []
    rows = _collect(
        lambda: spark.read.format("state-metadata").load(location), "state-metadata", notes
    )
    if not rows:
        return StateReport(layout, notes=notes or ["state-metadata: no stateful operator recorded"])
    meta = rows[0]
    options = statestore_options(Path(location))

    def reader() -> Any:  # a new one per read: a DataFrameReader keeps the options it is given
        return spark.read.format("statestore").options(**options)

    at = int(meta["maxBatchId"]) if batch is None else batch
    # batchId: the state as batch `at` left it (Spark's default is the last committed batch).
    state = _collect(lambda: reader().option("batchId", at).load(location), "statestore", notes)
    count = count_in(state[0]["value"].asDict(recursive=True)) if state else None
    if state == []:
        notes.append(f"statestore: no rows at batch {at}")
    # The last CHANGE_BATCHES batches, and back to the batch asked for if it is older: what
    # each batch changed from there on (a seeded batch 0 shows its seed write, for one).
    start = max(int(meta["minBatchId"]), min(int(meta["maxBatchId"]) - CHANGE_BATCHES + 1, at))
    feed = _collect(
        lambda: (
            reader()
            .option("readChangeFeed", "true")
            .option("changeStartBatchId", start)
            .load(location)
            .orderBy("batch_id")
        ),
        "change feed",
        notes,
    )
    changes = [
        BatchChange(
            int(r["batch_id"]),
            r["change_type"],
            count_in(r["value"].asDict(recursive=True)) if r["value"] else None,
        )
        for r in feed or []
    ]
    report = StateReport(
        layout,
        operator=meta["operatorName"],
        min_batch=int(meta["minBatchId"]),
        max_batch=int(meta["maxBatchId"]),
        count=count,
        count_batch=at,
        changes=changes,
        notes=notes,
    )
    properties = operator_properties(meta["operatorProperties"])
    if not properties.get("stateVariables"):
        return report
    return _with_time(spark, location, report, properties, start)


def operator_properties(text: str | None) -> dict[str, Any]:
    """transformWithState's operatorProperties (JSON in `state-metadata`); {} for another
    operator or text that is not JSON."""
    try:
        found = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}


def variables_of(properties: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The state variables operatorProperties lists: name, type and whether a TTL is set."""
    return [
        {
            "name": str(v.get("stateName")),
            "type": str(v.get("stateVariableType")),
            "ttl": bool(v.get("ttlEnabled")),
        }
        for v in properties.get("stateVariables") or []
    ]


def ttl_value(row: Any) -> dict[str, Any] | None:
    """A TTL'd value state's row as `{"value": {...}, "expires_ms": …}` (Spark wraps the value
    with its `ttlExpirationMs`); None for no row."""
    if row is None or row["value"] is None:
        return None
    wrapped = row["value"].asDict(recursive=True)
    return {"value": wrapped.get("value"), "expires_ms": wrapped.get("ttlExpirationMs")}


def _with_time(
    spark: Any, location: str, report: StateReport, properties: Mapping[str, Any], start: int
) -> StateReport:
    """Add transformWithState's TTL'd variables and timers at the report's batch."""
    from dataclasses import replace

    notes, at = list(report.notes), report.count_batch
    variables = variables_of(properties)
    values: dict[str, dict[str, Any] | None] = {}
    changes: list[TtlChange] = []
    for name in (v["name"] for v in variables if v["ttl"]):

        def read(name: str = name, **options: Any) -> Any:
            return (
                spark.read.format("statestore")
                .option("stateVarName", name)
                .options(**{k: str(o) for k, o in options.items()})
                .load(location)
            )

        rows = _collect(lambda: read(batchId=at), f"statestore {name}", notes)
        values[name] = ttl_value(rows[0]) if rows else None
        feed = _collect(
            lambda: read(readChangeFeed="true", changeStartBatchId=start).orderBy("batch_id"),
            f"change feed of {name}",
            notes,
        )
        changes += [
            TtlChange(
                int(r["batch_id"]), name, r["change_type"], (ttl_value(r) or {}).get("expires_ms")
            )
            for r in feed or []
        ]
    timers = None
    if properties.get("timeMode") in ("ProcessingTime", "EventTime"):
        # After the last committed batch: what the next batch may fire.
        rows = _collect(
            lambda: (
                spark.read.format("statestore")
                .option("readRegisteredTimers", "true")
                .option("batchId", report.max_batch)
                .load(location)
            ),
            "registered timers",
            notes,
        )
        timers = None if rows is None else sorted(int(r["expiration_timestamp_ms"]) for r in rows)
    return replace(
        report,
        notes=notes,
        time_mode=properties.get("timeMode"),
        variables=variables,
        ttl_values=values,
        ttl_changes=changes,
        timers=timers,
    )
