"""Position evaluation: a pattern evaluation (Logistello family) whose weights cythello
learned from its own games (see :mod:`cythello.training`).

    >>> cythello.evaluate(board)        # expected final disc difference, side to move
"""
from __future__ import annotations

from typing import Optional

from ..core._board import Board
from ._patterns import PatternWeights, feature_indices
from .weights import default_weights, load_weights, read_weights, save_weights

__all__ = ["evaluate", "PatternWeights", "feature_indices", "load_weights", "default_weights",
           "read_weights", "save_weights"]


def evaluate(board: Board, weights: Optional[PatternWeights] = None) -> float:
    """The expected final disc difference for the side to move, by the pattern evaluation
    (the shipped weights unless ``weights`` are given)."""
    if not isinstance(board, Board):
        raise TypeError(f"evaluate needs a cythello.Board, not {type(board).__name__}")
    return (weights or default_weights()).evaluate(board)
