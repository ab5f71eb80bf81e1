"""Training positions from self-play runs: the positions of the games, plus off-path
positions (a random legal move away from a game position), deduplicated.

Off-path positions matter: an evaluation fitted only to positions from well-played games
has never seen the mistakes a search must refute (NTest's author calls them vital once an
evaluation has more than a few coefficients).  Each off-path position is labelled on its
own, never by the result of the game it left.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Dict, Iterable, Tuple, Union

import numpy as np

from ..core._board import Board
from ..selfplay import load

_PathLike = Union[str, Path]


def side_to_move(data: Dict[str, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """``(own, opp)`` bitboards of the side to move of self-play rows."""
    turn = data["turn"].astype(bool)
    own = np.where(turn, data["white"], data["black"]).astype(np.uint64)
    opp = np.where(turn, data["black"], data["white"]).astype(np.uint64)
    return own, opp


def empties_of(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    occupied = np.bitwise_or(own, opp)
    bits = np.unpackbits(occupied.view(np.uint8).reshape(-1, 8), axis=1)
    return np.asarray(64 - bits.sum(axis=1), dtype=np.int64)


def off_path(own: np.ndarray, opp: np.ndarray, fraction: float,
             seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """For a ``fraction`` of the positions, the position after a random legal move (the
    side to move then being the opponent); positions without a move are skipped."""
    rng = random.Random(seed)
    out_own, out_opp = [], []
    for p, o in zip(own.tolist(), opp.tolist()):
        if rng.random() >= fraction:
            continue
        board = Board.from_bitboards(p, o, 0)
        moves = list(board.legal_moves)
        if not moves or moves == [64]:
            continue
        board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        child_own, child_opp = board.position()
        out_own.append(child_own)
        out_opp.append(child_opp)
    return np.array(out_own, dtype=np.uint64), np.array(out_opp, dtype=np.uint64)


def unique_positions(own: np.ndarray, opp: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The distinct positions, in a fixed (sorted) order."""
    pairs = np.unique(np.stack([own, opp], axis=1), axis=0)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def training_positions(runs: Iterable[_PathLike], off_path_fraction: float,
                       seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """The distinct game and off-path positions of self-play runs (games not over)."""
    owns, opps = [], []
    for run in runs:
        own, opp = side_to_move(load(run))
        owns.append(own)
        opps.append(opp)
    own = np.concatenate(owns) if owns else np.zeros(0, np.uint64)
    opp = np.concatenate(opps) if opps else np.zeros(0, np.uint64)
    extra_own, extra_opp = off_path(own, opp, off_path_fraction, seed)
    return unique_positions(np.concatenate([own, extra_own]), np.concatenate([opp, extra_opp]))
