"""CRC-32C (Castagnoli) of record batches, fast enough to check every produced batch.

Kafka's v2 record batches carry a CRC-32C. kafka-python computes it with the C `crc32c` package
when that is installed and otherwise byte by byte in Python (about 7 MB/s), which would cap the
broker far below the producer rates we benchmark. Without the C package we use numpy instead:
a CRC is linear over GF(2), so each byte's contribution depends only on its value and on how many
bytes follow it. Up to 1 KiB, one table of contributions per (bytes following, byte) makes the CRC
one lookup per byte and an XOR. Longer inputs use a smaller table (it stays in the CPU cache) for
64-byte blocks, then fold the block results the same way, 64 at a time, until one value is left.
Measured: a few microseconds for a small batch, 150-300 MB/s for large ones.

Usage: `crc32c(batch_bytes[21:]) == stored_crc`
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from kafka.record import util as _kafka_record_util

__all__ = ["crc32c"]

_POLY = 0x82F63B78  # CRC-32C, reflected
_BLOCK = 64  # bytes per block at the first level, and values per group at every later level
_DIRECT = 1024  # up to this many bytes, one lookup per byte in a per-position table


def _byte_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
        table[byte] = crc
    return table


_T = _byte_table()


def _shift_zero_bytes(values: np.ndarray, count: int) -> np.ndarray:
    """Feed `count` zero bytes through the CRC register for every value (no init, no final xor)."""
    values = values.copy()
    for _ in range(count):
        values = (values >> np.uint32(8)) ^ _T[values & np.uint32(0xFF)]
    return values


def _apply(images: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Apply the linear map given by its 32 basis images to every value."""
    out = np.zeros_like(values)
    for bit in range(32):
        mask = (values >> np.uint32(bit)) & np.uint32(1)
        out ^= mask * images[bit]
    return out


@lru_cache(maxsize=1)
def _first_level_table() -> np.ndarray:
    """[position * 256 + byte] -> contribution of `byte` at `position` in a 64-byte block."""
    rows = [_T.copy()]
    for _ in range(_BLOCK - 1):
        rows.append(_shift_zero_bytes(rows[-1], 1))
    rows.reverse()  # the last byte of a block is followed by no further bytes
    return np.concatenate(rows)


@lru_cache(maxsize=1)
def _direct_tables() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Per-position contributions for inputs up to _DIRECT bytes, and the initial value's share.

    Row r holds each byte's contribution when r bytes follow it, so an n-byte input uses the
    last n rows as they are: no padding, no copy. `init[n]` is 0xFFFFFFFF pushed through n bytes.
    """
    rows = [_T.copy()]
    for _ in range(_DIRECT - 1):
        rows.append(_shift_zero_bytes(rows[-1], 1))
    table = np.concatenate(rows)
    row_starts = np.arange(0, _DIRECT * 256, 256, dtype=np.intp)[::-1].copy()
    init = [0xFFFFFFFF]
    register = np.array([0xFFFFFFFF], dtype=np.uint32)
    for _ in range(_DIRECT):
        register = _shift_zero_bytes(register, 1)
        init.append(int(register[0]))
    return table, row_starts, init


def _direct_crc32c(array: np.ndarray) -> int:
    table, row_starts, init = _direct_tables()
    count = len(array)
    raw = np.bitwise_xor.reduce(table[row_starts[_DIRECT - count:] + array])
    return int(raw) ^ init[count] ^ 0xFFFFFFFF


@lru_cache(maxsize=None)
def _shift_images(level: int) -> np.ndarray:
    """Basis images of the map 'append 64**level zero bytes'."""
    basis = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    if level == 1:
        return _shift_zero_bytes(basis, _BLOCK)
    lower = _shift_images(level - 1)
    images = basis
    for _ in range(_BLOCK):
        images = _apply(lower, images)
    return images


@lru_cache(maxsize=None)
def _fold_table(level: int) -> np.ndarray:
    """[(slot * 4 + byte_index) * 256 + byte] -> contribution of one byte of a block CRC at `slot`."""
    step = _shift_images(level)
    byte_values = np.arange(256, dtype=np.uint32)
    per_byte = np.concatenate([byte_values << np.uint32(8 * i) for i in range(4)])
    rows = [per_byte]  # slot 63 is followed by nothing
    for _ in range(_BLOCK - 1):
        rows.append(_apply(step, rows[-1]))
    rows.reverse()
    return np.concatenate(rows)


def _front_pad(array: np.ndarray, multiple: int) -> np.ndarray:
    # Leading zeros do not change a CRC computed without an initial value.
    missing = (-len(array)) % multiple
    if missing:
        array = np.concatenate([np.zeros(missing, dtype=array.dtype), array])
    return array


def _raw_crc(data: np.ndarray) -> int:
    """CRC register after `data` starting from 0, without the final xor."""
    blocks = _front_pad(data, _BLOCK).reshape(-1, _BLOCK).astype(np.intp)
    blocks += np.arange(0, _BLOCK * 256, 256, dtype=np.intp)
    values = np.bitwise_xor.reduce(_first_level_table()[blocks], axis=1)
    level = 1
    while len(values) > 1:
        groups = _front_pad(values.astype("<u4"), _BLOCK).view(np.uint8).reshape(-1, _BLOCK * 4)
        indices = groups.astype(np.intp) + np.arange(0, _BLOCK * 4 * 256, 256, dtype=np.intp)
        values = np.bitwise_xor.reduce(_fold_table(level)[indices], axis=1)
        level += 1
    return int(values[0])


def _numpy_crc32c(data: bytes | bytearray | memoryview) -> int:
    array = np.frombuffer(data, dtype=np.uint8)
    if len(array) == 0:
        return 0
    if len(array) <= _DIRECT:
        return _direct_crc32c(array)
    array = array.copy()
    # Starting the register at 0xFFFFFFFF equals xoring it into the first four bytes.
    array[:4] ^= np.uint8(0xFF)
    return _raw_crc(array) ^ 0xFFFFFFFF


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC-32C of `data` as stored in a Kafka v2 record batch."""
    if _kafka_record_util.crc32c_c is not None:
        return _kafka_record_util.calc_crc32c(data)
    return _numpy_crc32c(data)
