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
    raw = inflate(body[8:], count * RECORD.itemsize, where, BookError,
                  check=_RecordCheck(where))
    return np.frombuffer(raw, dtype=RECORD).copy(), header


# The four centre squares (d4, e4, d5, e5): taken in every position a game reaches, in
# every orientation of a key.
CENTRE = (1 << 27) | (1 << 28) | (1 << 35) | (1 << 36)
MAX_VALUE = 64 * VALUE_SCALE       # no game ends with more than 64 discs between the sides


class _RecordCheck:
    """What a checksum cannot promise, judged part by part as the records are inflated (so
    a hostile file is refused after its first bad part): each record is a position some
    game reaches, with values a game can have, in key order."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.tail = b""                         # a record cut between two parts
        self.last: "tuple[int, int] | None" = None

    def __call__(self, part: bytes, offset: int) -> None:
        data = self.tail + part
        whole = len(data) - len(data) % RECORD.itemsize
        self.tail = data[whole:]
        records = np.frombuffer(data[:whole], dtype=RECORD)
        if len(records):
            check_records(records, self.where, self.last)
            self.last = (int(records["own"][-1]), int(records["opp"][-1]))


def check_records(records: np.ndarray, where: str,
                  previous: "tuple[int, int] | None" = None) -> None:
    """Refuse (:class:`BookError` naming ``where``) records that make no sense: a square
    taken twice, a centre square empty (no game reaches such a position), a value beyond
    +-64 discs, a leaf move off the board or onto a taken square, keys out of order (after
    ``previous``, the key before them)."""
    own, opp = records["own"], records["opp"]
    taken = own | opp
    if np.any(own & opp):
        raise BookError(f"{where} is corrupt (a position with a square taken twice)")
    if np.any(taken & np.uint64(CENTRE) != np.uint64(CENTRE)):
        raise BookError(f"{where} is corrupt (a position with an empty centre square, "
                        "which no game reaches)")
    for field in ("value", "leaf_value"):
        if np.any(np.abs(records[field].astype(np.int32)) > MAX_VALUE):
            raise BookError(f"{where} is corrupt (a {field.replace('_', ' ')} beyond "
                            "+-64 discs)")
    leaf = records["leaf_move"]
    has_leaf = leaf != NO_MOVE
    if np.any(has_leaf & (leaf >= 64)):
        raise BookError(f"{where} is corrupt (a leaf move off the board)")
    if np.any(has_leaf & ((taken >> (leaf.astype(np.uint64) & np.uint64(63)))
                          & np.uint64(1) == 1)):
        raise BookError(f"{where} is corrupt (a leaf move onto a taken square)")
    if previous is not None:
        own = np.concatenate([np.array([previous[0]], np.uint64), own])
        opp = np.concatenate([np.array([previous[1]], np.uint64), opp])
    ordered = (own[1:] > own[:-1]) | ((own[1:] == own[:-1]) & (opp[1:] > opp[:-1]))
    if not np.all(ordered):
        raise BookError(f"{where} is corrupt (its positions are not sorted)")


def sort_records(records: np.ndarray) -> np.ndarray:
    """``records`` in key order (what :func:`write_book` expects)."""
    return records[np.lexsort((records["opp"], records["own"]))]
