"""Reading a self-play run: its rows as arrays, optionally in all 8 symmetric forms, and
board planes for a training loop."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional, Union

import numpy as np

from . import symmetry
from .shards import ShardError, concatenate, iter_shards

_PathLike = Union[str, Path]


def load(out_dir: _PathLike, limit: Optional[int] = None,
         augment: bool = False) -> Dict[str, np.ndarray]:
    """All rows of a run as one dict of equal-length arrays (see :data:`SCHEMA`), shards in
    order; ``limit`` reads only the first shards.  With ``augment``, each row comes in its
    8 symmetric forms (:func:`augment`: 8 blocks of rows and a
    ``symmetry`` column)."""
    out = Path(out_dir)
    if not out.is_dir():
        raise ShardError(f"no self-play run at {out}")
    data = concatenate(list(iter_shards(out, limit)))
    return symmetry.augment(data) if augment else data


def planes(data: Dict[str, np.ndarray]) -> np.ndarray:
    """Board planes for a training loop: (N, 2, 8, 8) float32 of 0/1, the side to move's
    discs then the opponent's (as :meth:`cythello.Board.planes`)."""
    black, white, turn = data["black"], data["white"], data["turn"].astype(bool)
    own = np.where(turn, white, black).astype(np.uint64)
    opp = np.where(turn, black, white).astype(np.uint64)
    bits = np.stack([own, opp], axis=1).view(np.uint8).reshape(-1, 2, 8)
    return np.unpackbits(bits, axis=2, bitorder="little").reshape(-1, 2, 8, 8).astype(np.float32)
