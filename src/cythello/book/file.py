"""Opening book files (``.cybook``): writing, checking and reading them.

    magic "CYTHBOOK" | u32 format version | u32 header length | header (JSON object, UTF-8)
    | u32 record count | u32 payload length | payload (zlib of the records)
    | u32 CRC-32 of everything before it

The records (:data:`RECORD`, 22 bytes each, little-endian) are sorted by key, the smallest
(own, opponent) bitboard pair of a position's 8 symmetries, with the side to move's discs
first (:func:`cythello.book._keys.canonical`).  Values are in 1/8 disc
(:data:`VALUE_SCALE`) for the side to move; the leaf move is a square in the key's
orientation, or :data:`NO_MOVE`.  The header says how the book was built.

A file that is missing, not a regular file, truncated, corrupt, oversized or not a book
raises :class:`~cythello.errors.BookError` naming what is wrong; nothing in a hostile file
can make the reader allocate more than its size limit or hang.
"""
from __future__ import annotations

import json
import os
import struct
import zlib
from typing import Any, Dict, Tuple, Union

import numpy as np

from .._files import MAX_HEADER, inflate, read_checked, write_atomic
from ..errors import BookError

MAGIC = b"CYTHBOOK"
FORMAT_VERSION = 1
VALUE_SCALE = 8                    # stored values are in 1/8 disc
NO_MOVE = 255                      # a position without a leaf (every move is in the book)
MAX_RECORDS = 1 << 26              # 64 M positions (1.4 GB): far beyond any shipped book
RECORD = np.dtype([
    ("own", "<u8"),                # the side to move's discs (key orientation)
    ("opp", "<u8"),                # the opponent's discs
    ("value", "<i2"),              # negamax of the book moves and the leaf, 1/8 disc
    ("leaf_value", "<i2"),         # the leaf move's searched value, 1/8 disc
    ("leaf_move", "u1"),           # the best move whose position is not in the book
    ("depth", "u1"),               # the depth of the search that valued the moves
])

_PathLike = Union[str, "os.PathLike[str]"]


def write_book(path: _PathLike, records: np.ndarray, header: Dict[str, Any]) -> None:
    """Write ``records`` (of :data:`RECORD`, sorted by key) and ``header`` atomically: a
    crash never leaves a half-written book in place."""
    records = np.ascontiguousarray(records, dtype=RECORD)
    text = json.dumps(header, sort_keys=True).encode()
    if len(text) > MAX_HEADER:
        raise BookError(f"book header of {len(text)} bytes is over {MAX_HEADER}")
    payload = zlib.compress(records.tobytes(), 9)
    body = (MAGIC + struct.pack("<II", FORMAT_VERSION, len(text)) + text
            + struct.pack("<II", len(records), len(payload)) + payload)
    write_atomic(path, body + struct.pack("<I", zlib.crc32(body)), "opening book", BookError)


def read_book(path: _PathLike) -> Tuple[np.ndarray, Dict[str, Any]]:
    """The records and header of a book file, checked (see the module's docstring)."""
    where = f"opening book {os.fspath(path)}"
    header, body = read_checked(path, MAGIC, FORMAT_VERSION,
                                MAX_RECORDS * RECORD.itemsize + MAX_HEADER + 64,
                                "opening book", BookError)
    if len(body) < 8:
        raise BookError(f"{where} is corrupt (no records)")
    count, plen = struct.unpack("<II", body[:8])
    if count > MAX_RECORDS or 8 + plen != len(body):
        raise BookError(f"{where} is corrupt (record count {count}, payload {plen} bytes)")
    raw = inflate(body[8:], count * RECORD.itemsize, where, BookError)
    records = np.frombuffer(raw, dtype=RECORD).copy()
    _check_records(records, where)
    return records, header


def _check_records(records: np.ndarray, where: str) -> None:
    """What a checksum cannot promise: the records of a well-formed file make sense."""
    if len(records) == 0:
        return
    if np.any(records["own"] & records["opp"]):
        raise BookError(f"{where} is corrupt (a position with a square taken twice)")
    if np.any((records["leaf_move"] >= 64) & (records["leaf_move"] != NO_MOVE)):
        raise BookError(f"{where} is corrupt (a leaf move off the board)")
    own, opp = records["own"], records["opp"]
    ordered = (own[1:] > own[:-1]) | ((own[1:] == own[:-1]) & (opp[1:] > opp[:-1]))
    if not np.all(ordered):
        raise BookError(f"{where} is corrupt (its positions are not sorted)")


def sort_records(records: np.ndarray) -> np.ndarray:
    """``records`` in key order (what :func:`write_book` expects)."""
    return records[np.lexsort((records["opp"], records["own"]))]
