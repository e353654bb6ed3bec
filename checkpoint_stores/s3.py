"""An S3 endpoint on a folder: s3proxy with jclouds' filesystem blob store and one bucket.

s3proxy answers the S3 API (signatures v2 and v4) and keeps each object as a file under the
data folder; the bucket is a folder made before it starts. Its logback logs at WARN (its
default is DEBUG: a line per socket read). Ready when it answers an HTTP request for the bucket.

Usage:
    with S3Server(Path("store-data"), port=9000, log_file=Path("log/s3-store.log")) as s3:
        print(s3.url)     # http://127.0.0.1:9000
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from checkpoint_stores.locations import ACCESS_KEY, BUCKET, SECRET_KEY
from checkpoint_stores.server import StoreServer

__all__ = ["S3Server"]

_LOGBACK = """<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="OUT"/></root>
</configuration>
"""


class S3Server(StoreServer):
    """s3proxy on 127.0.0.1:`port` with the bucket `checkpoint-experience`."""

    kind = "s3"
    main_class = "org.gaul.s3proxy.Main"
    heap = "-Xmx192m"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def _properties(self) -> Path:
        return self.data_dir / "s3proxy.properties"

    def prepare(self) -> None:
        blobs = self.data_dir / "blobs"
        (blobs / BUCKET).mkdir(parents=True, exist_ok=True)
        self._properties.write_text(
            "\n".join(
                [
                    f"s3proxy.endpoint=http://127.0.0.1:{self.port}",
                    "s3proxy.authorization=aws-v2-or-v4",
                    f"s3proxy.identity={ACCESS_KEY}",
                    f"s3proxy.credential={SECRET_KEY}",
                    "jclouds.provider=filesystem",
                    f"jclouds.filesystem.basedir={blobs}",
                    "",
                ]
            ),
            encoding="utf-8",
        )
        (self.data_dir / "logback.xml").write_text(_LOGBACK, encoding="utf-8")

    def jvm_options(self) -> list[str]:
        return [f"-Dlogback.configurationFile={self.data_dir / 'logback.xml'}"]

    def arguments(self) -> list[str]:
        return ["--properties", str(self._properties)]

    def answers(self) -> bool:
        """Any HTTP answer from s3proxy for the bucket (an unsigned request may get 403)."""
        try:
            with urllib.request.urlopen(f"{self.url}/{BUCKET}", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True
        except (OSError, urllib.error.URLError):
            return False
