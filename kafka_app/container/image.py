"""Our Kafka image: Apache Kafka's jars from the project's jar cache on the Debian base.

`checkpoint-experience/kafka:<version>-<hash>` runs one KRaft node with kafka_app's settings
for Apache Kafka (`start-kafka` beside this file; retention checked every 15 s, one replica of
the internal topics, no auto-created topics). The hash covers every input (the base, each jar,
the scripts, the settings), is the tag and the label `checkpoint-experience.inputs`, so the
image is built once per machine and again only when an input changes. `<repository>:<version>`
also names the newest build, for `KAFKA_IMAGE=checkpoint-experience/kafka:4.1.2` in
docker-compose.yml. Where a registry is reachable, apache/kafka stays the documented choice
(docs/producer.md#which-image-you-get-and-why-ours-exists).

Usage:
    tag = ensure_image("4.1.2", progress=True)
    python -m kafka_app image [--kafka-version 4.1.2]     # the same, from the command line
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from pathlib import Path

from kafka_app.apache.config import KafkaNode, render, server_properties
from kafka_app.apache.jars import DEFAULT_VERSION, kafka_jars
from kafka_app.apache.progress import Waiting
from kafka_app.broker.settings import BrokerSettings
from kafka_app.container.base import DEBIAN_MIRROR, ensure_base, image_dir
from kafka_app.container.errors import ImageBuildError, NoDockerEngine
from kafka_app.container.leftovers import OURS_LABEL

__all__ = [
    "REPOSITORY",
    "INPUTS_LABEL",
    "OURS_LABEL",
    "KAFKA_PORT",
    "container_properties",
    "docker_client",
    "ensure_image",
    "image_inputs",
]

REPOSITORY = "checkpoint-experience/kafka"
INPUTS_LABEL = "checkpoint-experience.inputs"
KAFKA_PORT, CONTROLLER_PORT = 9092, 9093
DATA_DIR = Path("/var/lib/kafka/data")
_HERE = Path(__file__).parent
_SCRIPTS = ("start-kafka", "kafka-env-properties", "kafka-broker-api-versions.sh")


def container_properties() -> str:
    """kafka_app's Apache Kafka settings for the one node in a container (all interfaces inside
    it; the port is published on 127.0.0.1 only, and clients are told 127.0.0.1:9092 unless
    KAFKA_ADVERTISED_LISTENERS names the published port)."""
    node = KafkaNode(node_id=1, port=KAFKA_PORT, controller_port=CONTROLLER_PORT, log_dir=DATA_DIR)
    return render(server_properties(BrokerSettings(host="0.0.0.0", port=KAFKA_PORT), node, [node]))


def _dockerfile(base: str, inputs: str) -> str:
    healthcheck = (
        f"/opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server 127.0.0.1:{KAFKA_PORT}"
    )
    return "\n".join(
        [
            f"FROM {base}",
            "COPY libs/ /opt/kafka/libs/",
            "COPY bin/ /opt/kafka/bin/",
            "COPY config/ /opt/kafka/config/",
            f'LABEL "{INPUTS_LABEL}"="{inputs}" "{OURS_LABEL}"="kafka"',
            f"EXPOSE {KAFKA_PORT}",
            f"HEALTHCHECK --interval=2s --timeout=10s --retries=60 CMD {healthcheck}",
            'ENTRYPOINT ["/opt/kafka/bin/start-kafka"]',
            "",
        ]
    )


def _files(jars: list[Path]) -> dict[str, Path | bytes]:
    """The build context: path in it -> a file to copy, or the bytes to write."""
    files: dict[str, Path | bytes] = {f"libs/{jar.name}": jar for jar in jars}
    files.update({f"bin/{name}": _HERE / name for name in _SCRIPTS})
    files["config/log4j2.xml"] = _HERE / "log4j2.xml"
    files["config/server.properties"] = container_properties().encode()
    return files


def image_inputs(base: str, files: dict[str, Path | bytes]) -> str:
    """A hash of the base image's tag and every file of the build context (names and contents)."""
    digest = hashlib.sha256(base.encode())
    for name in sorted(files):
        content = files[name]
        digest.update(b"\0" + name.encode() + b"\0")
        if isinstance(content, bytes):
            digest.update(content)
        else:
            with content.open("rb") as stream:
                for block in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def docker_client() -> object:
    """A client of the Docker engine, or NoDockerEngine saying what to do."""
    try:
        import docker
        import docker.errors
    except ImportError as error:
        raise NoDockerEngine(
            "the docker package is not installed; `uv sync` installs it"
        ) from error
    try:
        client = docker.from_env()
        client.ping()
    except (docker.errors.DockerException, OSError) as error:
        raise NoDockerEngine(
            "no Docker engine answers; start dockerd (as root: `dockerd &`), or "
            "install Docker (`apt-get install -y docker.io`)"
        ) from error
    return client


def ensure_image(
    version: str = DEFAULT_VERSION,
    *,
    progress: bool = True,
    client: object | None = None,
    mirror: str = DEBIAN_MIRROR,
) -> str:
    """The tag of our Kafka image for `version`, built only when no image has these inputs."""
    import docker.errors

    client = client or docker_client()
    base = ensure_base(client, progress=progress, mirror=mirror)
    files = _files(kafka_jars(version, progress=progress))
    inputs = image_inputs(base, files)
    tag = f"{REPOSITORY}:{version}-{inputs[:12]}"
    try:
        client.images.get(tag)  # type: ignore[attr-defined]
    except docker.errors.ImageNotFound:
        _build(client, tag, _dockerfile(base, inputs), files, progress=progress)
    # The version alone names the newest build (the image compose users give as KAFKA_IMAGE).
    client.images.get(tag).tag(REPOSITORY, version)  # type: ignore[attr-defined]
    return tag


def _build(
    client: object, tag: str, dockerfile: str, files: dict[str, Path | bytes], *, progress: bool
) -> None:
    import docker.errors

    image_dir().mkdir(parents=True, exist_ok=True)
    context = image_dir() / f"kafka-context.tar.tmp-{os.getpid()}"
    try:
        with tarfile.open(context, "w") as tar:
            _add(tar, "Dockerfile", dockerfile.encode())
            for name, content in files.items():
                _add(tar, name, content)
        with (
            Waiting(f"docker build of {tag}", enabled=progress) as waiting,
            context.open("rb") as stream,
        ):
            try:
                for chunk in client.api.build(
                    fileobj=stream,
                    custom_context=True,
                    tag=tag,
                    rm=True,  # type: ignore[attr-defined]
                    forcerm=True,
                    decode=True,
                    pull=False,
                ):
                    if "error" in chunk:
                        raise ImageBuildError(
                            f"docker build of {tag} failed: {chunk['error'].strip()}"
                        )
                    line = str(chunk.get("stream", "")).strip()
                    if line.startswith("Step "):
                        waiting.update(line)
            except docker.errors.DockerException as error:
                raise ImageBuildError(f"docker build of {tag} failed: {error}") from error
    finally:
        context.unlink(missing_ok=True)


def _add(tar: tarfile.TarFile, name: str, content: Path | bytes) -> None:
    if isinstance(content, Path):
        info = tar.gettarinfo(str(content), arcname=name)
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        with content.open("rb") as stream:
            tar.addfile(info, stream)
    else:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(content), 0o644
        tar.addfile(info, io.BytesIO(content))
