"""The Debian base of our Kafka image: bookworm (minbase) with Java 17, from Debian's mirror.

No image registry is needed: `debootstrap` fetches Debian's packages (the same mirror apt uses)
into a root file system, which is kept as a tarball in the project's cache
(`~/.cache/checkpoint-experience/container/`) and turned into an image by `docker import`. The
tarball's name holds a hash of what went into it, so a change of suite or packages makes a new
one; the image is re-imported from the tarball when Docker's own store lost it.

Usage:
    tag = ensure_base(docker.from_env(), progress=True)   # "checkpoint-experience/debian-jre:<hash>"
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from kafka_app.apache.progress import Waiting
from kafka_app.container.errors import ImageBuildError
from kafka_app.container.leftovers import process_alive
from maven_jars.cache import cache_root

__all__ = [
    "BASE_REPOSITORY",
    "DEBIAN_MIRROR",
    "base_inputs",
    "base_tag",
    "ensure_base",
    "image_dir",
    "remove_stale",
]

BASE_REPOSITORY = "checkpoint-experience/debian-jre"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
_SUITE = "bookworm"
# minbase: essential packages and apt only; Kafka needs a JRE, bash and coreutils, nothing else.
_PACKAGES = ("openjdk-17-jre-headless",)
# What an image does not need: documentation, man pages, translations, apt's downloaded debs.
_TRIM = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/locale",
    "usr/share/info",
    "var/cache/apt/archives",
    "var/lib/apt/lists",
)


def image_dir() -> Path:
    """Where the base's tarball (and a build's temporary files) live: the project's cache."""
    return cache_root() / "container"


def base_inputs() -> str:
    """A hash of everything the root file system is made from (not the mirror: any serves it)."""
    text = "\n".join(["debootstrap --variant=minbase", _SUITE, *_PACKAGES, *_TRIM])
    return hashlib.sha256(text.encode()).hexdigest()


def base_tag() -> str:
    return f"{BASE_REPOSITORY}:{_SUITE}-{base_inputs()[:12]}"


def ensure_base(client: object, *, progress: bool = True, mirror: str = DEBIAN_MIRROR) -> str:
    """The base image's tag, importing (and first bootstrapping) it only when it is missing."""
    import docker.errors

    tag = base_tag()
    try:
        client.images.get(tag)  # type: ignore[attr-defined]
        return tag
    except docker.errors.ImageNotFound:
        pass
    tarball = image_dir() / f"debian-{_SUITE}-jre17-{base_inputs()[:12]}.tar"
    remove_stale()
    if not tarball.is_file():
        _bootstrap(tarball, progress=progress, mirror=mirror)
    repository, _, version = tag.partition(":")
    with Waiting(f"docker import of {tarball.name}", enabled=progress):
        try:
            client.api.import_image_from_file(str(tarball), repository=repository, tag=version)  # type: ignore[attr-defined]
        except docker.errors.DockerException as error:
            raise ImageBuildError(f"docker import of {tarball} failed: {error}") from error
    return tag


def _bootstrap(tarball: Path, *, progress: bool, mirror: str) -> None:
    """debootstrap into a folder beside the tarball, tar it (to a .tmp, renamed), remove the folder."""
    if shutil.which("debootstrap") is None:
        raise ImageBuildError(
            "debootstrap is not installed, and our Kafka image's Debian base needs it; "
            "`apt-get install -y debootstrap` (as root) installs it"
        )
    if os.geteuid() != 0:
        raise ImageBuildError(
            "debootstrap must run as root to build our Kafka image's Debian base; "
            "run `python -m kafka_app image` as root once (later builds reuse it)"
        )
    tarball.parent.mkdir(parents=True, exist_ok=True)
    rootfs = tarball.with_name(f"{tarball.stem}.rootfs-{os.getpid()}")
    temporary = tarball.with_name(f"{tarball.name}.tmp-{os.getpid()}")
    command = [
        "debootstrap",
        "--variant=minbase",
        f"--include={','.join(_PACKAGES)}",
        _SUITE,
        str(rootfs),
        mirror,
    ]
    process: subprocess.Popen[str] | None = None
    try:
        with Waiting(
            f"debootstrap of Debian {_SUITE} with Java 17 (about a minute)", enabled=progress
        ) as waiting:
            process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            last: list[str] = []
            assert process.stdout is not None
            for line in process.stdout:
                last = (last + [line.rstrip()])[-5:]
                if line.startswith("I: "):
                    waiting.update(line[3:].strip())
            if process.wait() != 0:
                said = next(
                    (x for x in reversed(last) if x.startswith("E: ")), last[-1] if last else ""
                )
                raise ImageBuildError(
                    f"debootstrap of Debian {_SUITE} from {mirror} failed: {said} "
                    f"(another mirror: --mirror URL)"
                )
            for trimmed in _TRIM:
                shutil.rmtree(rootfs / trimmed, ignore_errors=True)
            waiting.update("writing the tarball")
            # GNU tar keeps what a root file system needs (device nodes, owners by number).
            subprocess.run(
                ["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(temporary), "."],
                check=True,
                stdin=subprocess.DEVNULL,
            )
        os.replace(temporary, tarball)
    finally:
        if process is not None and process.poll() is None:
            process.terminate()  # it unmounts what it mounted in the folder, then exits
            process.wait(60)
        temporary.unlink(missing_ok=True)
        _remove_rootfs(rootfs)


_OF_A_PROCESS = re.compile(r"\.(?:rootfs|tmp)-(\d+)$")


def remove_stale() -> None:
    """Remove what a build killed outright left in the cache: debootstrap's folder, a tarball
    or build context half written; each is named for its process, which is gone."""
    if not image_dir().is_dir():
        return
    for path in image_dir().iterdir():
        match = _OF_A_PROCESS.search(path.name)
        if match is None or process_alive(int(match.group(1))):
            continue
        if path.is_dir():
            _remove_rootfs(path)
        else:
            path.unlink(missing_ok=True)


def _mounts_under(folder: Path) -> list[str]:
    with open("/proc/mounts", encoding="utf-8") as mounts:
        points = [line.split()[1].replace("\\040", " ") for line in mounts]
    return [p for p in points if p == str(folder) or p.startswith(f"{folder}/")]


def _remove_rootfs(rootfs: Path) -> None:
    """Remove debootstrap's folder, but never through a mount: debootstrap mounts /proc and
    /sys (and on LXC binds /dev's nodes) inside it, and a run cut short may leave one."""
    if not rootfs.exists():
        return
    for point in sorted(_mounts_under(rootfs), key=len, reverse=True):
        subprocess.run(["umount", "--lazy", point], check=False, stdin=subprocess.DEVNULL)
    left = _mounts_under(rootfs)
    if left:
        raise ImageBuildError(
            f"{left[0]} is still mounted inside {rootfs}; unmount it "
            f"(`umount --lazy {left[0]}`) and remove {rootfs}"
        )
    try:
        shutil.rmtree(rootfs)
    except OSError as error:
        raise ImageBuildError(f"cannot remove debootstrap's folder {rootfs}: {error}") from error
