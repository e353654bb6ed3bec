"""The demo's two looks at files on disk: the output log's verdict and the checkpoint's summary.

Both read only files, through the project's pure readers (`scenarios.checker.verify` for the log,
`spark_app.checkpoint.reader` for the checkpoint), so they work whether the Spark app is up, down or
has never run. The `*_from_*` functions are pure and tested on their own.

Usage:
    verdict = read_verdict(Path("log/streaming-output.log"))
    line = checkpoint_line(read_checkpoint(Path("checkpoints")), kafka_earliest=120)
"""

from __future__ import annotations

from pathlib import Path

from scenarios.checker.verify import VerifyReport, verify_file
from scenarios.demo.state import CheckpointView, Verdict
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint
from spark_app.errors import CheckpointError
from spark_app.offsets import describe_offsets

__all__ = ["verdict_from_report", "read_verdict", "checkpoint_view", "read_checkpoint_view"]


def _problems(report: VerifyReport) -> str:
    parts = []
    if report.missing:
        parts.append(
            f"missing {report.missing_count} ({', '.join(str(r) for r in report.missing[:3])}"
            f"{' ...' if len(report.missing) > 3 else ''})"
        )
    if report.duplicated:
        parts.append(f"duplicated {len(report.duplicated)}")
    if report.count_resets:
        parts.append(f"count reset at value {', '.join(map(str, report.count_resets[:3]))}")
    other_breaks = [b for b in report.count_breaks if b.kind != "reset"]
    if other_breaks:
        parts.append(f"{len(other_breaks)} count break(s)")
    if report.unpaired:
        parts.append(f"{len(report.unpaired)} unpaired line(s)")
    if report.ignored_lines:
        parts.append(f"{report.ignored_lines} line(s) that are not output lines")
    return "; ".join(parts)


def verdict_from_report(report: VerifyReport) -> Verdict:
    """The verifier's report as one headline and a few detail lines."""
    if report.messages == 0:
        return Verdict(ok=None, headline="no messages in the output log yet")
    figures = (
        f"{report.distinct} of 1..{report.highest} seen, "
        f"{report.messages} messages read, last count {report.final_count}"
    )
    if report.ok:
        return Verdict(
            ok=True,
            headline=f"every message exactly once: {figures}",
            final_count=report.final_count,
        )
    return Verdict(
        ok=False,
        headline=f"{_problems(report)} | {figures}",
        details=tuple(report.summary_lines()[2:6]),
        final_count=report.final_count,
    )


def read_verdict(output_log: Path) -> Verdict:
    """The verdict of the output log as it is on disk right now."""
    if not output_log.is_file():
        return Verdict(ok=None, headline=f"no output log yet ({output_log})")
    try:
        return verdict_from_report(verify_file(output_log))
    except OSError as error:
        return Verdict(ok=None, headline=f"cannot read {output_log}: {error}")


def _still_in_kafka(resume_at: int | None, kafka_earliest: int | None) -> str:
    # The point of seed 001's scenario #2: a restart needs its resume offset still retained.
    if resume_at is None or kafka_earliest is None:
        return ""
    if resume_at >= kafka_earliest:
        return f"; still in Kafka (earliest {kafka_earliest})"
    return f"; AGED OUT of Kafka (earliest {kafka_earliest}): a restart reports data loss"


def _first_offset(info: CheckpointInfo) -> int | None:
    resume = info.resume_from
    return min(resume.values()) if resume else None


def checkpoint_view(
    info: CheckpointInfo, kafka_earliest: int | None = None, shown_as: str | None = None
) -> CheckpointView:
    """One line saying where a restart with this checkpoint would continue, and if it can;
    `shown_as` names it where `info.path` is a local copy (a checkpoint on a store)."""
    name = shown_as or f"{info.path}/"
    if not info.exists:
        return CheckpointView(summary=f"none at {name}: the next start is a new query, state empty")
    if info.is_new:
        return CheckpointView(summary=f"{name}: query started, no batch planned yet")
    resume = info.resume_from
    where = describe_offsets(resume) if resume else "where the query started"
    fit = _still_in_kafka(_first_offset(info), kafka_earliest)
    if info.pending is not None:
        return CheckpointView(
            summary=(
                f"batch {info.pending_id} planned, not committed: a restart replays it from "
                f"{where}{fit}"
            ),
            last_batch=info.last_committed_id,
        )
    return CheckpointView(
        summary=f"last committed batch {info.last_committed_id}: a restart resumes at {where}{fit}",
        last_batch=info.last_committed_id,
    )


def read_checkpoint_view(
    checkpoint_dir: Path, kafka_earliest: int | None = None, shown_as: str | None = None
) -> CheckpointView:
    """The checkpoint folder as it is on disk right now (a damaged one says so)."""
    try:
        return checkpoint_view(read_checkpoint(checkpoint_dir), kafka_earliest, shown_as)
    except (CheckpointError, OSError) as error:
        # Spark may be half-way through writing a batch file; the next read settles it.
        return CheckpointView(summary=f"unreadable right now: {error}")
