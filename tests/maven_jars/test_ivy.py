"""The real Ivy jar from PySpark, resolving from a Maven repository on disk (offline, ~1 s each),
and once from Maven Central itself (`--slow`)."""

from __future__ import annotations

import socket
import zipfile
from pathlib import Path

import pytest

from maven_jars import JarFetchError, ivy, resolve_jars


def publish(
    repo: Path, group: str, artifact: str, version: str, deps: tuple[str, ...] = ()
) -> None:
    """A jar and its POM in Maven's layout, as Maven Central serves them."""
    folder = repo / group.replace(".", "/") / artifact / version
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / f"{artifact}-{version}.jar", "w") as archive:
        archive.writestr(f"{artifact}/Main.class", b"\xca\xfe\xba\xbe")
    dependencies = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>"
        f"<scope>runtime</scope></dependency>"
        for g, a, v in (d.split(":") for d in deps)
    )
    (folder / f"{artifact}-{version}.pom").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f"<groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>"
        f"<dependencies>{dependencies}</dependencies></project>"
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    publish(root, "org.example", "dep", "2.0")
    publish(root, "org.example", "tiny", "1.0", ("org.example:dep:2.0",))
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_MAVEN_REPO", root.as_uri())
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    return root


def test_resolves_transitive_runtime_jars(repo: Path) -> None:
    jars = resolve_jars(["org.example:tiny:1.0"], name="tiny-1.0", progress=False)
    assert [p.name for p in jars] == ["dep-2.0.jar", "tiny-1.0.jar"]
    assert all(zipfile.ZipFile(p).namelist() for p in jars)


def test_unknown_version_says_not_served(repo: Path) -> None:
    with pytest.raises(JarFetchError) as caught:
        resolve_jars(["org.example:tiny:9.9"], name="tiny-9.9", progress=False)
    assert str(caught.value) == (
        f"cannot fetch org.example:tiny:9.9: not served by {repo.as_uri()}/; check the version"
    )


def test_unreachable_repository_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nobody listens on: connection refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_MAVEN_REPO", f"http://127.0.0.1:{port}/maven2/")
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(JarFetchError) as caught:
        resolve_jars(["org.example:tiny:1.0"], name="tiny-1.0", progress=False)
    assert "org.example:tiny:1.0" in str(caught.value)
    assert "cannot be reached (ConnectException)" in str(caught.value)


def test_without_pyspark_says_so(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ivy.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(JarFetchError, match="PySpark is not installed.*run `uv sync`"):
        resolve_jars(["org.example:tiny:1.0"], name="tiny-1.0", progress=False)


def test_without_java_says_so(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(JarFetchError) as caught:
        resolve_jars(["org.example:tiny:1.0"], name="tiny-1.0", progress=False)
    assert "no `java` on PATH" in str(caught.value) and "install Java 17" in str(caught.value)


def test_log_of_a_maven_central_miss_is_read_right() -> None:
    log = (
        "\t==== public: tried\n\t  https://repo1.maven.org/maven2/org/apache/kafka/kafka_2.13/9.9.9/"
        "kafka_2.13-9.9.9.pom\n\t\t:: org.apache.kafka#kafka_2.13;9.9.9: not found\n"
    )
    error = ivy.failure_from_log(log, ["org.apache.kafka:kafka_2.13:9.9.9"])
    assert str(error) == (
        "cannot fetch org.apache.kafka:kafka_2.13:9.9.9: not served by Maven Central; "
        "check the version"
    )


@pytest.mark.e2e
def test_fetches_a_small_artifact_from_maven_central(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHECKPOINT_EXPERIENCE_MAVEN_REPO", raising=False)
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    jars = resolve_jars(["org.slf4j:slf4j-api:1.7.36"], name="slf4j-api-1.7.36", progress=False)
    assert [p.name for p in jars] == ["slf4j-api-1.7.36.jar"]
    assert "org/slf4j/Logger.class" in zipfile.ZipFile(jars[0]).namelist()


def test_two_fetches_at_once_each_get_their_own_jars(repo: Path) -> None:
    """Ivy keeps a resolve report per module in the shared cache; ours are named per entry."""
    from concurrent.futures import ThreadPoolExecutor

    publish(repo, "org.example", "other", "3.0")
    with ThreadPoolExecutor(2) as pool:
        tiny = pool.submit(resolve_jars, ["org.example:tiny:1.0"], name="tiny-1.0", progress=False)
        other = pool.submit(
            resolve_jars, ["org.example:other:3.0"], name="other-3.0", progress=False
        )
        assert [p.name for p in tiny.result()] == ["dep-2.0.jar", "tiny-1.0.jar"]
        assert [p.name for p in other.result()] == ["other-3.0.jar"]
