"""The position index of a games database: every position before every move of every game,
keyed up to the 8 symmetries, so that the games through a position are found by a binary
search instead of a pass over millions of positions.

The index is two sorted arrays: the positions' 64-bit keys (:func:`cythello.core._replay.
position_keys`) and, beside each, ``game << 6 | move number``.  A key names a position up
to symmetry only almost surely, so a lookup replays the games it finds to that move and
keeps those whose position is the one asked for (a transform of it): a false match costs a
replay, never a wrong count.

Saved, an index is one of cythello's checked files (magic, version, a JSON header, the
arrays, a CRC-32), and its header holds the digest of the games it was built from: an
index for other games (the files changed) or a damaged one is refused with
:class:`GamesIndexError` and can be built again.
"""
from __future__ import annotations

import json
import os
import struct
import zlib
from typing import Union

import numpy as np

from .._files import read_checked, write_atomic
from ..core._replay import PLY_BITS, position_key, position_keys
from ..errors import InvalidBoardError
from .table import GameTable

_PathLike = Union[str, "os.PathLike[str]"]

MAGIC = b"CYGAMIDX"
FORMAT_VERSION = 1
MAX_FILE = 1 << 33            # 8 GiB: 700 M positions (the WTHOR collection's is 95 MB)
ENTRY_BYTES = 12


class GamesIndexError(InvalidBoardError):
    """A saved position index that is damaged, not an index, or built from other games."""


class PositionIndex:
    """Sorted position keys and, beside each, the game and move number it stands for."""

    def __init__(self, keys: np.ndarray, entries: np.ndarray, digest: str) -> None:
        self.keys = keys
        self.entries = entries
        self.digest = digest

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.entries.nbytes)

    @classmethod
    def build(cls, table: GameTable) -> "PositionIndex":
        """The index of every position of ``table``'s games (about 2 s for WTHOR's
        132 k games and 7.9 M positions on one core)."""
        keys, entries = position_keys(table.moves, table.start_black, table.start_white,
                                      table.start_turn, table.played)
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], entries[order], table.digest())

    def lookup(self, own: int, opp: int) -> np.ndarray:
        """The entries whose key is the position's (``own``: the side to move's discs):
        candidates, to be confirmed by replaying them."""
        key = np.uint64(position_key(own, opp))
        lo = int(np.searchsorted(self.keys, key, "left"))
        hi = int(np.searchsorted(self.keys, key, "right"))
        return self.entries[lo:hi]

    # -- files --------------------------------------------------------------------------------

    def save(self, path: _PathLike) -> None:
        """Write the index to ``path`` whole or not at all."""
        header = json.dumps({"positions": len(self), "digest": self.digest,
                             "ply_bits": PLY_BITS}).encode()
        body = (MAGIC + struct.pack("<II", FORMAT_VERSION, len(header)) + header
                + self.keys.astype("<u8").tobytes() + self.entries.astype("<u4").tobytes())
        write_atomic(path, body + struct.pack("<I", zlib.crc32(body)), "games index",
                     GamesIndexError)

    @classmethod
    def load(cls, path: _PathLike, table: GameTable) -> "PositionIndex":
        """The index saved at ``path``, refused (:class:`GamesIndexError`) when it is
        damaged or was built from games other than ``table``'s."""
        where = f"games index {os.fspath(path)}"
        header, body = read_checked(path, MAGIC, FORMAT_VERSION, MAX_FILE, "games index",
                                    GamesIndexError)
        n = header.get("positions")
        if (not isinstance(n, int) or n < 0 or len(body) != n * ENTRY_BYTES
                or header.get("ply_bits") != PLY_BITS):
            raise GamesIndexError(f"{where} is corrupt (its size disagrees with its header)")
        if header.get("digest") != table.digest():
            raise GamesIndexError(f"{where} was built from other games (the files changed "
                                  "since): build it again")
        keys = np.frombuffer(body, "<u8", n).astype(np.uint64, copy=False)
        entries = np.frombuffer(body, "<u4", n, 8 * n).astype(np.uint32, copy=False)
        if n > 1 and np.any(keys[1:] < keys[:-1]):
            raise GamesIndexError(f"{where} is corrupt (its keys are not sorted)")
        return cls(keys, entries, header["digest"])

