"""The offline kit: a partial kit is refused in one line, jars land where the apps look, the
install script is valid shell and names the kit's parts; and, nightly, a kit written here
installs a fresh clone with uv offline and Maven Central out of reach."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.kit import BUNDLE, INSTALL_SCRIPT, KIT_PARTS, install_jars, run_kit


def test_the_install_script_is_valid_shell_and_uses_the_kits_parts() -> None:
    assert subprocess.run(["sh", "-n", str(INSTALL_SCRIPT)]).returncode == 0
    script = INSTALL_SCRIPT.read_text()
    assert f"$KIT/{BUNDLE}" in script and "$KIT/uv-cache" in script
    assert "UV_OFFLINE=1" in script  # never a download on the laptop


def _install_with(tmp_path: Path, python: str | None) -> subprocess.CompletedProcess[str]:
    """install.sh run from a kit folder with only these on its PATH: git and java (stand-ins
    that fail if used), dirname, and `python3` (a script, or a link to a real one, or none)."""
    kit, bin_ = tmp_path / "kit", tmp_path / "bin"
    kit.mkdir()
    bin_.mkdir()
    (kit / "install.sh").write_text(INSTALL_SCRIPT.read_text())
    for tool in ("git", "java"):
        (bin_ / tool).write_text(f"#!/bin/sh\necho 'the {tool} stand-in was run' >&2; exit 3\n")
        (bin_ / tool).chmod(0o755)
    (bin_ / "dirname").symlink_to(shutil.which("dirname") or "/usr/bin/dirname")
    if python is not None and Path(python).is_file():
        (bin_ / "python3").symlink_to(python)
    elif python is not None:
        (bin_ / "python3").write_text(python)
        (bin_ / "python3").chmod(0o755)
    return subprocess.run(
        ["/bin/sh", str(kit / "install.sh"), str(tmp_path / "project")],
        cwd=tmp_path,
        env={"PATH": str(bin_), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )


OLD_PYTHON = '#!/bin/sh\n[ "$1" = "--version" ] && { echo "Python 3.8.10"; exit 0; }\nexit 1\n'


@pytest.mark.parametrize(
    "python, found", [(OLD_PYTHON, "found: Python 3.8.10"), (None, "found: no python3")]
)
def test_the_install_script_checks_python_as_it_checks_git_and_java(
    tmp_path: Path, python: str | None, found: str
) -> None:
    done = _install_with(tmp_path, python)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"install.sh: Python 3.10 or newer is missing ({found}); install it first "
        f"(see docs/workshop.md)"
    )
    assert not (tmp_path / "project").exists()  # stopped before the clone


def test_a_python_new_enough_passes_the_check(tmp_path: Path) -> None:
    done = _install_with(tmp_path, sys.executable)
    assert "Python 3.10 or newer is missing" not in done.stderr
    assert "the git stand-in was run" in done.stderr  # went on to the clone


def test_a_partial_kit_is_refused_naming_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jars").mkdir()
    assert run_kit(["install", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "not a whole kit (no install.sh, uv-cache, " + BUNDLE + ")" in err
    assert "kit write DIR" in err


def test_a_kit_is_not_written_over_a_folder_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert run_kit(["write", str(tmp_path)]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"  # nothing of the user's lost


def test_jars_go_to_the_project_cache_and_a_second_install_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = tmp_path / "kit"
    (kit / "jars" / "kafka-9.9.9").mkdir(parents=True)
    (kit / "jars" / "kafka-9.9.9" / "a.jar").write_bytes(b"PK")
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    assert install_jars(kit) == ["kafka-9.9.9"]
    assert install_jars(kit) == ["kafka-9.9.9"]
    assert (tmp_path / "cache" / "jars" / "kafka-9.9.9" / "a.jar").read_bytes() == b"PK"


@pytest.mark.nightly
def test_a_kit_written_here_installs_a_clone_with_no_network(tmp_path: Path) -> None:
    """Writes a kit (PyPI and Maven Central, about 2 min, 2.6 GB), then installs from it with
    uv offline and Maven pointed at a closed port, and asks doctor whether the laptop is ready."""
    kit, project = tmp_path / "kit", tmp_path / "laptop"
    written = subprocess.run(
        [sys.executable, "-m", "scenarios", "kit", "write", str(kit)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stdout + written.stderr
    assert all((kit / part).exists() for part in KIT_PARTS)
    laptop = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "CHECKPOINT_EXPERIENCE_MAVEN_REPO": "http://127.0.0.1:9/",
    }
    laptop.pop("CHECKPOINT_EXPERIENCE_CACHE", None)
    laptop.pop("VIRTUAL_ENV", None)
    installed = subprocess.run(
        ["sh", str(kit / "install.sh"), str(project)], env=laptop, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    doctor = subprocess.run(
        ["uv", "run", "--offline", "python", "-m", "scenarios", "doctor", "--no-smoke"],
        cwd=project,
        env=laptop,
        capture_output=True,
        text=True,
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "Apache Kafka's jars and Spark's connector are in the cache" in doctor.stdout
    assert "environment for spark-upgrade" in doctor.stdout
