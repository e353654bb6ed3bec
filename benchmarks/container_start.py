"""How long our Kafka image takes to build, and a container of it to answer, on this machine.

    uv run python benchmarks/container_start.py [--from scratch|tarball|image] [--starts 3]

`--from scratch` removes our images and the cached Debian tarball first and times every step
(debootstrap, docker import, docker build): a machine's first build. `--from tarball` (the
default) removes the images only: import and build, as after Docker's store was reset. `--from
image` times finding the built image by its inputs' hash. Then each of `--starts` containers is
timed from `start` to Kafka answering ApiVersions on 127.0.0.1 (kafka_app/container), and to
its removal. Needs a Docker engine and, for `scratch`, root. Leaves the image built and no
container behind.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder


def _remove(client: object, start_from: str) -> None:
    """Our images (for `tarball` and `scratch`) and the base's tarball (for `scratch`)."""
    from kafka_app.container.base import BASE_REPOSITORY, base_inputs, image_dir
    from kafka_app.container.image import REPOSITORY

    if start_from == "image":
        return
    for repository in (REPOSITORY, BASE_REPOSITORY):
        for image in client.images.list(name=repository):  # type: ignore[attr-defined]
            client.images.remove(image.id, force=True)  # type: ignore[attr-defined]
    if start_from == "scratch":
        for tarball in image_dir().glob(f"debian-*-{base_inputs()[:12]}.tar"):
            tarball.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--from",
        dest="start_from",
        choices=("scratch", "tarball", "image"),
        default="tarball",
        help="what is removed before the build is timed",
    )
    parser.add_argument(
        "--starts", type=int, default=3, help="containers started one after another"
    )
    args = parser.parse_args(argv)
    if args.starts < 1:
        print("error: --starts must be at least 1", file=sys.stderr)
        return 2

    from kafka_app.container import ContainerError
    from kafka_app.container.base import ensure_base
    from kafka_app.container.container import KafkaContainer
    from kafka_app.container.image import docker_client, ensure_image

    try:
        client = docker_client()
        _remove(client, args.start_from)
        began = time.monotonic()
        ensure_base(client, progress=False)
        base_sec = time.monotonic() - began
        tag = ensure_image(progress=False, client=client)
        build_sec = time.monotonic() - began
        print(
            f"image from {args.start_from}: {build_sec:.1f} s "
            f"(base {base_sec:.1f} s, Kafka's layer {build_sec - base_sec:.1f} s) -> {tag}"
        )
        ready, removed = [], []
        for _ in range(args.starts):
            began = time.monotonic()
            with KafkaContainer(tag):  # removed at the block's end, also when it fails to start
                ready.append(time.monotonic() - began)
                began = time.monotonic()
            removed.append(time.monotonic() - began)
    except ContainerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(
        f"container start to Kafka answering: median {statistics.median(ready):.1f} s "
        f"({', '.join(f'{s:.1f}' for s in ready)}); removal median {statistics.median(removed):.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
