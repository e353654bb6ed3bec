"""The offline kit: everything a workshop laptop would download, in one folder a trainer copies.

Twenty laptops on venue Wi-Fi each fetching PySpark, pandas and pyarrow (about 1 GB through
uv), Apache Kafka's jars and Spark's connector (about 110 MB from Maven Central) and
spark-upgrade's older PySpark is how a workshop loses its first hour. The trainer writes the kit
once, on a machine with network; an attendee installs from it with none:

    uv run python -m scenarios kit write /media/usb/kit     # the trainer, online
    sh /media/usb/kit/install.sh ~/checkpoint-experience     # each attendee, offline

The kit holds a uv cache filled by installing exactly the lock (uv installs from its own cache
with `--offline`, which is what caches are for), the jar cache's entries for the default stack,
the repository as a git bundle, the uv binary and `install.sh`. The script clones the bundle,
runs `uv sync --frozen --offline` against the kit's cache (copying, so the stick can go), then
`kit install`, which puts the jars where the apps look and makes spark-upgrade's PySpark from
the kit's cache too. Nothing in the install reaches PyPI or Maven Central; the test that proves
it points Maven at a closed port.

What it cannot carry: a Python interpreter (the laptop needs Python 3.10+ and Java 17 with
javac; install.sh checks Python, git and Java before it changes anything, `doctor` checks
javac too) and a uv for another platform (the kit's uv is this machine's).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from maven_jars.cache import cache_root
from maven_jars.errors import JarFetchError
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.errors import ScenarioError

__all__ = ["write_kit", "install_jars", "run_kit", "main_parser", "KIT_PARTS"]

INSTALL_SCRIPT = Path(__file__).with_name("kit_install.sh")
BUNDLE = "checkpoint-experience.bundle"
# What a written kit holds; `kit install` refuses a folder without them, saying which is missing.
KIT_PARTS = ("install.sh", "uv-cache", "jars", BUNDLE)


def _uv() -> str:
    from scenarios.engine.spark_envs import uv_path

    return uv_path("the kit is written with uv")


def _run(
    command: Sequence[str], env: dict[str, str] | None = None, cwd: Path = PROJECT_ROOT
) -> None:
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise ScenarioError(f"{Path(command[0]).name} {command[1]} failed: {last}")


def _fill_uv_cache(kit: Path, say: Callable[[str], None]) -> None:
    """Install the lock (and spark-upgrade's PySpark) into throwaway environments, with the
    kit's folder as uv's cache: what is left in the cache is what an install needs."""
    from scenarios.catalog.spark_upgrade import OLDEST_LINE_DEFAULT
    from scenarios.engine.spark_envs import requirements

    env = {**os.environ, "UV_CACHE_DIR": str(kit / "uv-cache")}
    scratch = kit / ".scratch"
    try:
        say("uv: the locked packages (PySpark, pandas, pyarrow, …; about 1 GB the first time)")
        _run(
            [_uv(), "sync", "--frozen", "--quiet"],
            {**env, "UV_PROJECT_ENVIRONMENT": str(scratch / "project")},
        )
        say(f"uv: PySpark {OLDEST_LINE_DEFAULT} for spark-upgrade")
        _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(scratch / "older")], env)
        _run(
            [
                _uv(),
                "pip",
                "install",
                "--quiet",
                "--python",
                str(scratch / "older" / "bin" / "python"),
                *requirements(OLDEST_LINE_DEFAULT),
            ],
            env,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _drop_build_trees(kit / "uv-cache")


def _drop_build_trees(cache: Path) -> None:
    """uv keeps the unpacked source tree beside each wheel it built from a source distribution
    (PySpark is one: 2.3 of the kit's 4.7 GB). Only a rebuild reads it; an install uses the
    built wheel, so the kit leaves the trees out (the install test proves the wheels suffice)."""
    for tree in cache.glob("sdists-v*/*/*/*/*/src"):
        shutil.rmtree(tree)


def _copy_jars(kit: Path, say: Callable[[str], None]) -> None:
    """The jar cache's entries the default stack uses, fetched first if they are not yet."""
    from kafka_app.apache.jars import DEFAULT_VERSION, kafka_jars
    from scenarios.engine.spark_envs import locked_spark_version
    from spark_app.runtime.connector_jars import connector_jars

    say("jars: Apache Kafka's and Spark's connector")
    jars = kafka_jars(DEFAULT_VERSION) + connector_jars(locked_spark_version())
    for entry in sorted({jar.parent for jar in jars}):
        shutil.copytree(entry, kit / "jars" / entry.name, dirs_exist_ok=True)


def _bundle(kit: Path, say: Callable[[str], None]) -> None:
    say("git: the repository as a bundle")
    if not (PROJECT_ROOT / ".git").exists():
        raise ScenarioError(
            f"{PROJECT_ROOT} is not a git clone; the kit carries the repository "
            "as a git bundle, so write it from a clone"
        )
    _run(["git", "bundle", "create", "--quiet", str(kit / BUNDLE), "HEAD", "--branches"])


def write_kit(kit: Path, say: Callable[[str], None] = print) -> None:
    if kit.exists() and any(kit.iterdir()):
        raise ScenarioError(f"{kit} is not empty; give a new or empty folder for the kit")
    kit.mkdir(parents=True, exist_ok=True)
    _fill_uv_cache(kit, say)
    _copy_jars(kit, say)
    _bundle(kit, say)
    shutil.copy2(INSTALL_SCRIPT, kit / "install.sh")
    shutil.copy2(_uv(), kit / "uv")  # for a laptop without uv (the same platform as this one)
    size = sum(f.stat().st_size for f in kit.rglob("*") if f.is_file() and not f.is_symlink())
    say(f"kit written: {kit} ({size / 1e9:.1f} GB); on each laptop: sh {kit}/install.sh DIR")


def install_jars(kit: Path) -> list[str]:
    """Copy the kit's jar entries into this machine's jar cache; the names copied."""
    target = cache_root() / "jars"
    target.mkdir(parents=True, exist_ok=True)
    names = []
    for entry in sorted((kit / "jars").iterdir()):
        shutil.copytree(entry, target / entry.name, dirs_exist_ok=True)
        names.append(entry.name)
    return names


def _install(kit: Path, say: Callable[[str], None]) -> None:
    from scenarios.catalog.spark_upgrade import OLDEST_LINE_DEFAULT
    from scenarios.engine.spark_envs import spark_python

    missing = [part for part in KIT_PARTS if not (kit / part).exists()]
    if missing:
        raise ScenarioError(
            f"{kit} is not a whole kit (no {', '.join(missing)}); write one with "
            "`uv run python -m scenarios kit write DIR`"
        )
    say(f"jars: {', '.join(install_jars(kit))} into {cache_root() / 'jars'}")
    # spark_envs makes the older PySpark with uv; pointed at the kit's cache, offline.
    os.environ.update(UV_CACHE_DIR=str(kit / "uv-cache"), UV_OFFLINE="1", UV_LINK_MODE="copy")
    spark_python(OLDEST_LINE_DEFAULT, say)
    say("installed; check the laptop with `uv run python -m scenarios doctor`")


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios kit",
        description="Write or install the offline kit for a workshop.",
    )
    action = parser.add_subparsers(dest="action", required=True)
    action.add_parser("write", help="write a kit into DIR (needs network, once)").add_argument(
        "dir", type=Path, metavar="DIR"
    )
    action.add_parser(
        "install", help="install from a kit (install.sh calls this; no network)"
    ).add_argument("dir", type=Path, metavar="DIR")
    return parser


def run_kit(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(argv)

    def say(text: str) -> None:
        print(f"kit: {text}", flush=True)

    try:
        (write_kit if args.action == "write" else _install)(args.dir.resolve(), say)
    except (ScenarioError, JarFetchError, OSError) as error:
        print(f"kit: {error}", file=sys.stderr)
        return 1
    return 0
