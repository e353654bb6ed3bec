"""`--checkpoint-latency SPEC`: every checkpoint write Spark makes takes that long, for real.

Seed 000's checkpoints went to S3, where a write took 1 to 20 s (log-normal, mean 2.6 s); a
local disk takes milliseconds, so nobody saw the trouble in development. To show it here, Spark
writes its checkpoint through a file manager of ours: `SlowCheckpointFileManager`, a subclass of
the one the app already uses (`FileSystemBasedCheckpointFileManager`), whose
`renameTempFile` (the moment a written file lands under its name, as an object store's PUT
completes) first waits a latency drawn from SPEC. Every file goes that way: `offsets/N`,
`commits/N`, the state store's `.delta` files, `metadata`. Spark's own progress report then
shows it (`walCommit`, `commitOffsets`); no sleep happens in our Python code.

The class is compiled with the JDK's `javac` against the running PySpark's jars the first time
it is needed and kept in the class cache folder. Chosen over a FUSE file system because it
needs no mount, no root and no extra package, and it sits exactly where Spark's own pluggable
checkpoint storage sits (`spark.sql.streaming.checkpointFileManagerClass`), which is also
where a real S3-backed manager would plug in.

SPEC: `fixed:500ms` or `lognormal:mean=2.6s,min=1s,max=20s[,sigma=0.8]` (sigma of the log,
default 0.8), and `@state` after either for the state store's files only (`fixed:2s@state`):
the cluster scenarios slow the state write they kill an executor in, and nothing else, so their
first batch does not wait for slow `metadata`, `offsets/0` and `commits/0` too.

Usage: `LatencySpec.parse("fixed:500ms").spark_conf()`; `SlowCheckpointClasses(folder).ensure()`
"""

from __future__ import annotations

import hashlib
import io
import math
import random
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from spark_app.errors import SparkAppError
from spark_app.runtime.atomic_file import write_atomically
from spark_app.runtime.class_cache import pyspark_jars
from spark_app.runtime.jvm_flags import NO_PERF_FILE

__all__ = [
    "LatencySpec",
    "SlowCheckpointClasses",
    "CheckpointLatencyError",
    "CLASS_NAME",
    "checkpoint_manager_package",
]


def checkpoint_manager_package(jars: Path) -> str:
    """Where this Spark keeps FileSystemBasedCheckpointFileManager: 4.0 and 4.1 had it in
    `...execution.streaming`, later lines moved it to `...execution.streaming.checkpointing`."""
    for jar in jars.glob("spark-sql_*.jar"):
        names = set(zipfile.ZipFile(jar).namelist())
        if (
            "org/apache/spark/sql/execution/streaming/checkpointing/"
            "FileSystemBasedCheckpointFileManager.class"
        ) in names:
            return "org.apache.spark.sql.execution.streaming.checkpointing"
    return "org.apache.spark.sql.execution.streaming"


CLASS_NAME = "checkpointexperience.SlowCheckpointFileManager"
_UNITS_MS = {"ms": 1.0, "s": 1000.0}
_HINT = "install a JDK (Debian/Ubuntu: `sudo apt-get install openjdk-17-jdk-headless`)"


class CheckpointLatencyError(SparkAppError):
    """A bad --checkpoint-latency, or no JDK to build the slow file manager with."""

    token = "CHECKPOINT_LATENCY"
    exit_code = 2


def _ms(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*", text)
    if match is None:
        raise CheckpointLatencyError(
            f"--checkpoint-latency: {text!r} is not a duration like 500ms or 2.6s"
        )
    return float(match.group(1)) * _UNITS_MS[match.group(2)]


@dataclass(frozen=True)
class LatencySpec:
    """How long one checkpoint write takes: a fixed time, or log-normal clamped to [min, max]."""

    kind: str
    mean_ms: float
    min_ms: float = 0.0
    max_ms: float = 0.0
    sigma: float = 0.8
    only: str = ""  # "state": only the files under the checkpoint's state/ folder

    @classmethod
    def parse(cls, text: str) -> LatencySpec:
        text, _, only = text.partition("@")
        if only not in ("", "state"):
            raise CheckpointLatencyError(
                f"--checkpoint-latency: @{only} is not a choice; "
                f"@state slows the state store's files only"
            )
        return replace(cls._parse(text), only=only)

    @classmethod
    def _parse(cls, text: str) -> LatencySpec:
        kind, _, rest = text.partition(":")
        if kind == "fixed":
            return cls("fixed", _ms(rest))
        if kind != "lognormal":
            raise CheckpointLatencyError(
                f"--checkpoint-latency must be fixed:500ms or "
                f"lognormal:mean=2.6s,min=1s,max=20s, got {text!r}"
            )
        fields = dict(part.split("=", 1) for part in rest.split(",") if "=" in part)
        if "mean" not in fields:
            raise CheckpointLatencyError(
                f"--checkpoint-latency lognormal needs mean=…, got {text!r}"
            )
        spec = cls(
            "lognormal",
            _ms(fields["mean"]),
            _ms(fields.get("min", "0ms")),
            _ms(fields.get("max", "3600s")),
            float(fields.get("sigma", "0.8")),
        )
        if not spec.min_ms <= spec.mean_ms <= spec.max_ms:
            raise CheckpointLatencyError(
                f"--checkpoint-latency: min <= mean <= max does not hold in {text!r}"
            )
        return spec

    def draw_ms(self, rng: random.Random) -> float:
        """One write's latency, drawn as the Java class below draws it (the TCP proxy in front
        of an object store draws here: slow-checkpoint on s3)."""
        if self.kind != "lognormal":
            return self.mean_ms
        mu = math.log(self.mean_ms) - self.sigma**2 / 2  # so that the mean is mean_ms
        return max(self.min_ms, min(self.max_ms, math.exp(mu + self.sigma * rng.gauss())))

    def spark_conf(self) -> dict[str, str]:
        """Read by the Java class from the Hadoop configuration (`spark.hadoop.*`)."""
        prefix = "spark.hadoop.checkpointexperience.latency"
        return {
            f"{prefix}.kind": self.kind,
            f"{prefix}.mean.ms": str(self.mean_ms),
            f"{prefix}.min.ms": str(self.min_ms),
            f"{prefix}.max.ms": str(self.max_ms),
            f"{prefix}.sigma": str(self.sigma),
            f"{prefix}.only": self.only,
        }


_JAVA = """package checkpointexperience;

import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import {base_package}.FileSystemBasedCheckpointFileManager;

/** Spark's checkpoint file manager, with every file taking a drawn latency to land. */
public class SlowCheckpointFileManager extends FileSystemBasedCheckpointFileManager {{
    private static final String KEY = "checkpointexperience.latency.";
    private final Random random = new Random();
    private final String kind;
    private final double meanMs, minMs, maxMs, sigma;
    private final boolean slow;  // whether this manager's files wait at all

    public SlowCheckpointFileManager(Path path, Configuration conf) {{
        super(path, conf);
        kind = conf.get(KEY + "kind", "fixed");
        meanMs = conf.getDouble(KEY + "mean.ms", 0);
        minMs = conf.getDouble(KEY + "min.ms", 0);
        maxMs = conf.getDouble(KEY + "max.ms", 0);
        sigma = conf.getDouble(KEY + "sigma", 0.8);
        slow = conf.get(KEY + "only", "").isEmpty() || underState(path);
    }}

    /** A state store's manager is made for <checkpoint>/state/<operator>/<partition>[/<store>];
     *  offsets/, commits/ and metadata have theirs one level below the checkpoint. */
    private static boolean underState(Path path) {{
        Path up = path.getParent();
        for (int level = 2; level <= 3 && up != null; level++) {{
            up = up.getParent();
            if (up != null && "state".equals(up.getName())) return true;
        }}
        return false;
    }}

    private long drawMs() {{
        if (!"lognormal".equals(kind)) return Math.round(meanMs);
        double mu = Math.log(meanMs) - sigma * sigma / 2;  // so that the mean is meanMs
        double ms = Math.exp(mu + sigma * random.nextGaussian());
        return Math.round(Math.max(minMs, Math.min(maxMs, ms)));
    }}

    @Override
    public void renameTempFile(Path src, Path dst, boolean overwriteIfPossible) {{
        try {{
            if (slow) Thread.sleep(drawMs());  // the object store's PUT, before the file is visible
        }} catch (InterruptedException e) {{
            Thread.currentThread().interrupt();
        }}
        super.renameTempFile(src, dst, overwriteIfPossible);
    }}
}}
"""


class SlowCheckpointClasses:
    """The compiled class, in a jar kept as `<cache>/slow-checkpoint-<spark version>-<hash>.jar`.

    A jar on `spark.jars`, not a class folder on `extraClassPath`: Spark puts `extraClassPath`
    before its own jars on the JVM's class path, and a class-data archive is only used by a JVM
    whose class path begins as the archive's did. On `spark.jars` the driver and a cluster's
    executors start on the same class path as every other app, and share its archive."""

    def __init__(self, cache_dir: Path) -> None:
        import pyspark

        self.spark_version = pyspark.__version__
        self.jars = pyspark_jars()
        # The source's own hash in the name: a changed class is compiled again, not reused.
        source = hashlib.sha256(_JAVA.encode()).hexdigest()[:8]
        self.jar = cache_dir / f"slow-checkpoint-{self.spark_version}-{source}.jar"

    def ensure(self) -> Path:
        """The jar for `spark.jars`, compiled on first use."""
        if self.jar.exists():
            return self.jar
        javac = shutil.which("javac")
        if javac is None:
            raise CheckpointLatencyError(
                f"--checkpoint-latency builds a small Java class with "
                f"javac, which was not found: {_HINT}."
            )
        with tempfile.TemporaryDirectory(prefix="slow-checkpoint-") as work:
            source = Path(work) / "SlowCheckpointFileManager.java"
            source.write_text(
                _JAVA.format(base_package=checkpoint_manager_package(self.jars)), encoding="utf-8"
            )
            built = Path(work) / "classes"
            done = subprocess.run(
                [
                    javac,
                    f"-J{NO_PERF_FILE}",
                    "-nowarn",
                    "-cp",
                    f"{self.jars}/*",
                    "-d",
                    str(built),
                    str(source),
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                raise CheckpointLatencyError(
                    f"javac could not build the slow checkpoint file "
                    f"manager for PySpark {self.spark_version}: "
                    f"{done.stderr.strip().splitlines()[-1:]}"
                )
            self.jar.parent.mkdir(parents=True, exist_ok=True)
            # Whole or not at all, even with two apps at once.
            write_atomically(self.jar, _jar_bytes(built))
        # The class folder earlier versions kept under the jar's name (a directory).
        shutil.rmtree(self.jar.with_suffix(""), ignore_errors=True)
        return self.jar


def _jar_bytes(classes: Path) -> bytes:
    """A jar of the compiled classes: a zip, which is all a class loader needs of a jar."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as jar:
        for path in sorted(classes.rglob("*.class")):
            jar.write(path, path.relative_to(classes).as_posix())
    return buffer.getvalue()
