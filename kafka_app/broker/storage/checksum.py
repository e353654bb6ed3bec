"""CRC-32C (Castagnoli) of record batches, checked for every produced batch.

Kafka's v2 record batches carry a CRC-32C. We use the C `crc32c` package (a dependency for this
reason): kafka-python's pure-Python fallback manages about 7 MB/s, which would cap the broker far
below the producer rates we benchmark.

Usage: `crc32c(batch_bytes[21:]) == stored_crc`
"""

from __future__ import annotations

import crc32c as _crc32c_c

__all__ = ["crc32c"]


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC-32C of `data` as stored in a Kafka v2 record batch."""
    return _crc32c_c.crc32c(data)
