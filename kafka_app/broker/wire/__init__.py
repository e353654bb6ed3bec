"""Kafka's wire: framing and a connection's bytes, bounded decoding, the API versions we speak,
the Fetch answer's encoding, and the connection limit. It knows no handler: the broker's
client connection (kafka_app/broker/client.py) reads a request here and answers it there."""
