"""Exact endgame solving: the perfect move and the final disc difference under perfect play.

    >>> result = cythello.solve(board)          # SolveResult(score, best_move, nodes, ...)
    >>> cythello.solve_moves(board)             # {move: exact score} for every legal move

Scores are for the side to move, empties counted for the winner (as in the FFO suite).
The work grows about fourfold per empty square: 20 empties take seconds, 30 take far too
long, so give a ``time_limit`` (or ``node_limit``) when in doubt; an aborted solve raises
:class:`SolveAborted`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Dict, Optional

from ..core._board import Board
from ..errors import InvalidBoardError
from ..squares import square_name
from ._endgame import Solver
from .settings import check_int, deadline


class SolveAborted(RuntimeError):
    """The solve hit its time or node limit (or was stopped) before it finished."""


@dataclass
class SolveResult:
    score: int                 # exact final disc difference for the side to move
    best_move: int
    nodes: int
    elapsed: float

    @property
    def best_move_name(self) -> str:
        """The best move as text."""
        return square_name(self.best_move)

    @property
    def outcome(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for the side to move."""
        return "win" if self.score > 0 else "loss" if self.score < 0 else "draw"


def _check(board: Board, node_limit: Optional[int]) -> None:
    if not isinstance(board, Board):
        raise TypeError(f"solve needs a cythello.Board, not {type(board).__name__}")
    if board.is_game_over():
        raise InvalidBoardError("the game is over: there is nothing to solve")
    if node_limit is not None:
        check_int("node_limit", node_limit, 1, 2**63 - 1)


def solve(board: Board, time_limit: Optional[float] = None,
          node_limit: Optional[int] = None, solver: Optional[Solver] = None) -> SolveResult:
    """The exact score and a best move of ``board`` (GIL released while it runs)."""
    _check(board, node_limit)
    solver = solver or Solver()
    start = time.monotonic()
    score, move, aborted = solver.solve(board, -64, 64, node_limit, deadline(time_limit))
    if aborted:
        raise SolveAborted(f"solve stopped after {solver.nodes:,} nodes, "
                           f"{time.monotonic() - start:.2f} s")
    return SolveResult(score, move, solver.nodes, time.monotonic() - start)


def solve_moves(board: Board, time_limit: Optional[float] = None,
                node_limit: Optional[int] = None) -> Dict[int, int]:
    """The exact score of every legal move, as the ``.obf`` files list them."""
    _check(board, node_limit)
    solver = Solver()
    scores = solver.move_scores(board, node_limit, deadline(time_limit))
    if scores is None:
        raise SolveAborted("solve_moves hit its limit")
    return dict(scores)
