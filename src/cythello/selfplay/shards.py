"""Self-play shards: compressed ``.npz`` files of equal-length arrays, one row per position.

Written byte-identically for the same content (fixed zip timestamps, a fixed member
order), to a temporary name first and renamed into place, so a shard that exists is
complete; a crash leaves at most a ``.part`` file, which is ignored and overwritten.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np

from .._files import read_npz, write_npz

# The columns of a shard, their dtypes and meaning (the documented schema).
SCHEMA: Dict[str, "tuple[str, str]"] = {
    "black": ("uint64", "black's discs (bit i = square i, a1 = 0)"),
    "white": ("uint64", "white's discs"),
    "turn": ("uint8", "side to move: 0 black, 1 white"),
    "move": ("uint8", "move played: square 0-63, 64 = pass"),
    "visits": ("uint32", "root visits of each of the 65 moves (N x 65; a forced move: 1)"),
    "value": ("float32", "root value: the search's win rate for the side to move "
                          "(NaN for a forced move, which is not searched)"),
    "result": ("float32", "final outcome for the side to move: 1 win, 0.5 draw, 0 loss"),
    "disc_diff": ("int8", "final disc difference for the side to move (empties to the winner)"),
    "game": ("int64", "index of the game in the run"),
    "ply": ("uint8", "moves played before this position in the game"),
}


class ShardError(OSError):
    """A shard could not be written or read (bad path, full disk, corrupt file)."""


def shard_name(index: int) -> str:
    return f"shard-{index:06d}.npz"


def write_shard(path: Path, columns: Dict[str, np.ndarray]) -> None:
    """Write one shard atomically; raises :class:`ShardError` on any I/O failure."""
    write_npz(path, {name: np.asarray(columns[name], dtype=dtype)
                     for name, (dtype, _) in SCHEMA.items()}, "shard", ShardError,
              compress=True)


def read_shard(path: Path) -> Dict[str, np.ndarray]:
    """The columns of one shard, checked against the schema."""
    columns = read_npz(path, "shard", ShardError)
    missing = [name for name in SCHEMA if name not in columns]
    if missing:
        raise ShardError(f"shard {path} lacks columns {missing}")
    n = len(columns["black"])
    for name, (dtype, _) in SCHEMA.items():
        if columns[name].dtype != np.dtype(dtype) or len(columns[name]) != n:
            raise ShardError(f"shard {path}: column {name} is not {n} x {dtype}")
    return columns


def shard_paths(out_dir: Path) -> List[Path]:
    return sorted(Path(out_dir).glob("shard-*.npz"))


def concatenate(parts: Sequence[Dict[str, np.ndarray]]) -> Dict[str, np.ndarray]:
    """One table from many (in order)."""
    if not parts:
        return {name: np.zeros((0, 65) if name == "visits" else 0, dtype=dtype)
                for name, (dtype, _) in SCHEMA.items()}
    return {name: np.concatenate([p[name] for p in parts]) for name in SCHEMA}


def iter_shards(out_dir: Path, limit: Optional[int] = None) -> Iterator[Dict[str, np.ndarray]]:
    """The shards of a run, one table at a time (for data that does not fit in memory)."""
    for i, path in enumerate(shard_paths(out_dir)):
        if limit is not None and i >= limit:
            return
        yield read_shard(path)
