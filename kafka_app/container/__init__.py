"""Apache Kafka in a container: our own image, built from Debian's packages and Kafka's jars.

One module per concept: `base` (the Debian base, by debootstrap), `image` (the Kafka image,
rebuilt only when an input changes), `container` (one node through testcontainers, waiting
until Kafka answers), `leftovers` (what a process killed outright left), `cli`
(`python -m kafka_app image`). See docs/producer.md, "Which image
you get, and why ours exists".

Usage:
    with KafkaContainer(ensure_image()) as kafka:
        print(kafka.bootstrap_servers)
"""

from kafka_app.container.errors import ContainerError, ImageBuildError, NoDockerEngine

__all__ = ["ContainerError", "ImageBuildError", "NoDockerEngine"]
