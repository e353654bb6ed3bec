"""Errors of our Kafka image: each `str()` is the one line the CLI prints.

Usage: `raise ImageBuildError("debootstrap is not installed; apt-get install -y debootstrap")`.
"""

from __future__ import annotations

__all__ = ["ContainerError", "ImageBuildError", "NoDockerEngine"]


class ContainerError(Exception):
    """Our Kafka image or a container of it could not be built, started or stopped."""


class NoDockerEngine(ContainerError):
    """No Docker engine answers (none installed, dockerd not running, or no permission)."""


class ImageBuildError(ContainerError):
    """The Debian base or the Kafka image could not be built."""
