"""A corpus of checkpoints: what `compat --keep DIR` wrote, and `check-change --corpus DIR` reads.

Each kept checkpoint is a folder of its own under DIR, named after its cell of the matrix:

    DIR/<cell>/manifest.json     the line that wrote it, the query, the store, the format, the
                                 app settings it ran with, and the offset its last commit reached
    DIR/<cell>/records.jsonl     the records that went into Kafka, as the producer logged them
                                 (kafka_app/sent_records.py): what the oracle judges by
    DIR/<cell>/checkpoint/       the checkpoint as the writing line left it when it stopped
    DIR/<cell>/query-output/     the query's rows as the writing line left them (its batch
                                 files, spark_app/lines/query_rows.py): with the restart's,
                                 the query's whole output, which the oracle judges
    DIR/<cell>/query.py          the query module as it ran: a corpus moved to another clone,
                                 or read after the module was edited, restarts what wrote it

This module is the one owner of that layout: `keep` writes a cell, `read_corpus` reads every
cell back, so the writer and the reader cannot drift apart.

Usage:
    keep(Path("corpus"), manifest, checkpoint=stage_checkpoint, records=sent, rows=stage_rows)
    for cell in read_corpus(Path("corpus")): cell.manifest.line, cell.checkpoint, cell.rows
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from kafka_app.sent_records import SentRecord, format_record, read_sent_records
from scenarios.errors import ScenarioError
from spark_app.lines.query_rows import QUERY_OUTPUT_DIR

__all__ = [
    "Manifest",
    "KeptCheckpoint",
    "keep",
    "read_corpus",
    "MANIFEST",
    "QUERY",
    "RECORDS",
    "ROWS",
]

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
CHECKPOINT = "checkpoint"
ROWS = QUERY_OUTPUT_DIR
QUERY = "query.py"


@dataclass(frozen=True)
class Manifest:
    """What a kept checkpoint is: enough to restart it anywhere and judge it."""

    cell: str  # the folder's name: query, variant and line pair
    line: str  # the PySpark line that wrote the checkpoint
    query: str  # the query module: its path when written, the cell's copy when read back
    store: str  # "hdfs" or "rocksdb"
    format: int  # the checkpoint format (2: RocksDB's names per attempt, with a lineage)
    committed_offset: int  # where the last commit reached: a restart resumes there
    settings: dict[str, Any] = field(default_factory=dict)  # the app settings it ran with


@dataclass(frozen=True)
class KeptCheckpoint:
    """A corpus cell read back: its manifest, its records, and where its checkpoint and the
    writing line's rows are (`rows` None: a cell kept before corpora kept them)."""

    manifest: Manifest
    records: tuple[SentRecord, ...]
    checkpoint: Path
    rows: Path | None = None


def keep(
    corpus: Path,
    manifest: Manifest,
    checkpoint: Path,
    records: Sequence[SentRecord],
    rows: Path,
) -> Path:
    """Write one cell under `corpus` (made if missing; the cell's own folder replaced): the
    checkpoint and the query's rows (`rows`, its output folder; missing when it wrote none)
    copied, the records and the manifest. Returns the cell's folder."""
    cell = corpus / manifest.cell
    shutil.rmtree(cell, ignore_errors=True)
    cell.mkdir(parents=True)
    shutil.copytree(checkpoint, cell / CHECKPOINT)
    if rows.is_dir():
        shutil.copytree(rows, cell / ROWS)
    else:  # no row written: an empty folder says so, where a missing one says "not kept"
        (cell / ROWS).mkdir()
    shutil.copyfile(manifest.query, cell / QUERY)
    (cell / RECORDS).write_text("".join(format_record(r) + "\n" for r in records), "utf-8")
    # The manifest last: a cell without one was cut short, and read_corpus passes it by.
    written = replace(manifest, query=QUERY)  # the copy, named inside the cell
    (cell / MANIFEST).write_text(json.dumps(asdict(written), indent=1) + "\n", "utf-8")
    return cell


def read_corpus(corpus: Path) -> list[KeptCheckpoint]:
    """Every complete cell under `corpus`, by name; a ScenarioError in one line when there is
    none, or a manifest cannot be read."""
    if not corpus.is_dir():
        raise ScenarioError(f"--corpus {corpus}: no such folder (write one with compat --keep)")
    kept = []
    for path in sorted(corpus.glob(f"*/{MANIFEST}")):
        try:
            manifest = Manifest(**json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, TypeError) as error:
            raise ScenarioError(f"{path}: not a corpus manifest ({error})") from error
        records = tuple(read_sent_records(path.parent / RECORDS))
        manifest = replace(manifest, query=str(path.parent / manifest.query))
        rows = path.parent / ROWS
        kept.append(
            KeptCheckpoint(
                manifest, records, path.parent / CHECKPOINT, rows if rows.is_dir() else None
            )
        )
    if not kept:
        raise ScenarioError(
            f"--corpus {corpus}: no kept checkpoint in it (compat --keep writes them)"
        )
    return kept
