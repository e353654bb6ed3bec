"""Kafka's wire: connections, framing, bounded decoding, the API versions we speak."""
