"""8-fold symmetry augmentation of self-play rows.

Othello's rules are symmetric under the 8 symmetries of the board (:meth:`Board.transform`
numbers them 0-7), so every recorded position stands for 8 positions with the same
results: the discs, the move played and the visit counts move square by square, the rest
of the row stays.  Done on whole columns with NumPy, from the square maps of
:func:`cythello.transform_square`, so it agrees with ``Board.transform`` by construction.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np

from cythello.core._board import PASS, transform_square

# SQUARE_MAP[k][sq]: where square sq goes under symmetry k; index 64 (pass) stays.
SQUARE_MAP = np.array([[transform_square(sq, k) if sq < 64 else PASS for sq in range(65)]
                       for k in range(8)], dtype=np.int64)
_BITS = np.arange(64, dtype=np.uint64)


def transform_bitboards(boards: np.ndarray, symmetry: int) -> np.ndarray:
    """A uint64 array of bitboards under one symmetry (bit i = square i)."""
    boards = np.asarray(boards, dtype=np.uint64)
    bits = (boards[:, None] >> _BITS) & np.uint64(1)                 # (N, 64), one per square
    moved = np.zeros_like(bits)
    moved[:, SQUARE_MAP[symmetry][:64]] = bits                       # bit sq -> bit map[sq]
    packed: np.ndarray = np.bitwise_or.reduce(moved << _BITS, axis=1).astype(np.uint64)
    return packed


def augment(data: Dict[str, np.ndarray],
            symmetries: Optional[Sequence[int]] = None) -> Dict[str, np.ndarray]:
    """The rows of ``data`` (as :func:`cythello.selfplay.load` returns) under each of
    ``symmetries`` (default all 8, identity first), one block of rows per symmetry, with a
    ``symmetry`` column saying which.  ``move`` and the 65 ``visits`` columns are carried
    along; the results, values and game/ply indices are unchanged."""
    ks = list(range(8)) if symmetries is None else [int(k) for k in symmetries]
    if not ks or any(not 0 <= k < 8 for k in ks):
        raise ValueError(f"symmetries must be a non-empty list of 0-7, not {symmetries!r}")
    n = len(data["black"])
    blocks = []
    for k in ks:
        block = dict(data)
        block["black"] = transform_bitboards(data["black"], k)
        block["white"] = transform_bitboards(data["white"], k)
        block["move"] = SQUARE_MAP[k][data["move"].astype(np.int64)].astype(data["move"].dtype)
        visits = np.empty_like(data["visits"])
        visits[:, SQUARE_MAP[k]] = data["visits"]                      # column sq -> map[sq]
        block["visits"] = visits
        block["symmetry"] = np.full(n, k, dtype=np.uint8)
        blocks.append(block)
    return {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
