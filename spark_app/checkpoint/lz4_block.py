"""Reading Java's `LZ4BlockOutputStream`, the framing Spark compresses state changelogs with.

Spark writes `<v>.changelog` through its lz4 codec (`spark.sql.streaming.stateStore.compression
.codec`, pinned, lz4 by default), which is lz4-java's block stream, not the LZ4 frame format
the `lz4` package reads. Its framing is small: per block the magic `LZ4Block`, a token (method
in the high nibble: 0x10 raw, 0x20 LZ4), the compressed and the original length and a checksum
(little-endian ints); an empty block ends the stream. The LZ4 block format inside is a short
loop. Only the first lines of a changelog are ever read (its version and lineage), so this
plain Python decoder is fast enough and the project needs no native library for it.

Usage: `data = decompress(Path("state/0/0/4_<id>.changelog").read_bytes())`
"""

from __future__ import annotations

import struct

from spark_app.errors import CheckpointError

__all__ = ["MAGIC", "decompress", "decompress_block", "ends_cleanly"]

MAGIC = b"LZ4Block"
_HEADER = struct.Struct("<Biii")  # token, compressed length, original length, checksum
_RAW, _LZ4 = 0x10, 0x20


def decompress(data: bytes, limit: int | None = None) -> bytes:
    """The bytes of a block stream, up to its end mark (or about `limit` bytes, when given)."""
    out = bytearray()
    at = 0
    while at + len(MAGIC) + _HEADER.size <= len(data) and (limit is None or len(out) < limit):
        if data[at : at + len(MAGIC)] != MAGIC:
            raise CheckpointError(
                f"not an lz4 block stream at byte {at}: a changelog written "
                f"with another stateStore.compression.codec?"
            )
        token, packed, size, _ = _HEADER.unpack_from(data, at + len(MAGIC))
        at += len(MAGIC) + _HEADER.size
        if size == 0:  # the end mark
            break
        block = data[at : at + packed]
        at += packed
        out += block if token & 0xF0 == _RAW else decompress_block(block, size)
    return bytes(out)


def decompress_block(src: bytes, size: int) -> bytes:
    """One LZ4 block: sequences of literals then a match copied from `offset` bytes back."""
    out = bytearray()
    i = 0
    while i < len(src):
        token = src[i]
        i += 1
        literals, i = _length(src, i, token >> 4)
        out += src[i : i + literals]
        i += literals
        if i >= len(src) or len(out) >= size:  # the last sequence has literals only
            break
        offset = src[i] | src[i + 1] << 8
        i += 2
        match, i = _length(src, i, token & 0x0F)
        start = len(out) - offset
        if offset == 0 or start < 0:
            raise CheckpointError("a corrupt lz4 block: a match before the start of the data")
        for k in range(match + 4):  # byte by byte: a match may overlap what it writes
            out.append(out[start + k])
    return bytes(out)


def _length(src: bytes, i: int, nibble: int) -> tuple[int, int]:
    """A length whose nibble 15 continues in the next bytes (each 255 adds and goes on)."""
    length = nibble
    if nibble == 15:
        while True:
            extra = src[i]
            i += 1
            length += extra
            if extra != 255:
                break
    return length, i


def ends_cleanly(data: bytes) -> bool | None:
    """Whether a block stream holds every block it announces and its end mark; None when
    `data` is not an lz4 block stream at all (another codec wrote it). A file cut short by a
    crash of the machine ends inside a block, or before the end mark."""
    if not data.startswith(MAGIC):
        return None
    at = 0
    while at + len(MAGIC) + _HEADER.size <= len(data):
        if data[at : at + len(MAGIC)] != MAGIC:
            return False
        _, packed, size, _ = _HEADER.unpack_from(data, at + len(MAGIC))
        at += len(MAGIC) + _HEADER.size
        if size == 0:
            return True
        at += packed
    return False
