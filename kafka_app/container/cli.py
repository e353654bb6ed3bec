"""`python -m kafka_app image`: build our Kafka image once (with progress) and print its tag.

Usage:
    python -m kafka_app image [--kafka-version 4.1.2] [--mirror URL]
    KAFKA_IMAGE=checkpoint-experience/kafka:4.1.2 docker compose up -d
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from kafka_app.apache.jars import DEFAULT_VERSION, check_version
from kafka_app.container.base import DEBIAN_MIRROR
from kafka_app.container.errors import ContainerError
from maven_jars import JarFetchError

__all__ = ["main_parser", "main"]


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kafka_app image",
        description="Build our Kafka image (Debian's Java 17 and Apache Kafka's jars, no registry "
        "needed) once, and print its tag; it is rebuilt only when an input changes.",
    )
    parser.add_argument(
        "--kafka-version",
        default=DEFAULT_VERSION,
        help=f"Apache Kafka's version (default {DEFAULT_VERSION})",
    )
    parser.add_argument(
        "--mirror",
        default=DEBIAN_MIRROR,
        metavar="URL",
        help=f"Debian mirror for the base (default {DEBIAN_MIRROR})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from kafka_app.container.image import REPOSITORY, ensure_image

    args = main_parser().parse_args(argv)
    problem = check_version(args.kafka_version)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        tag = ensure_image(args.kafka_version, progress=True, mirror=args.mirror)
    except (ContainerError, JarFetchError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130
    print(
        f"{tag} ready in {time.monotonic() - start:.0f} s (also tagged {REPOSITORY}:{args.kafka_version})",
        file=sys.stderr,
    )
    print(tag)
    return 0


if __name__ == "__main__":
    sys.exit(main())
