"""Players: objects with ``choose_move(board)``.

Every player -- the searching ones built on the engine shell (:mod:`.engine`: UCT's
:class:`~cythello.MCTSPlayer` in :mod:`.uct`, :class:`~cythello.PUCTPlayer` in :mod:`.puct`,
:class:`~cythello.AlphaBetaPlayer` in :mod:`.alphabeta`), :class:`RandomPlayer`, the
baseline, and the external-engine players of :mod:`cythello.protocols.engine` -- follows
the same :class:`Player` protocol.
"""
from __future__ import annotations

import random
from typing import Any, Optional, Protocol

from .._moved import moved_name
from ..core._board import Board
from ..errors import InvalidBoardError
from ..squares import PASS
from .limits import Limit, PlayResult

__all__ = ["Player", "RandomPlayer"]

# Names this module held until 0.4, at their homes now (cythello.* has the public ones).
_MOVED = {
    "MCTSPlayer": "cythello.search.uct",
    "_player_from_settings": "cythello.search.uct",     # players pickled before 0.4
    "AlphaBetaPlayer": "cythello.search.alphabeta",
    "EnginePlayer": "cythello.search.engine",
    "SearchResult": "cythello.search.results",
    "MoveStats": "cythello.search.results",
    "PRESETS": "cythello.search.presets",
    "CLASSIC": "cythello.search.presets",
    "NODE_BYTES": "cythello.search.uct._pool",
}


def __getattr__(name: str) -> Any:
    return moved_name(__name__, name, _MOVED)


class Player(Protocol):
    """Anything that picks a move for a board: a square 0-63 or ``PASS``."""

    def choose_move(self, board: Board) -> int:
        """The move to play on ``board``: a square 0-63 or ``PASS``."""
        ...


class RandomPlayer:
    """Plays a uniformly random legal move; seedable for reproducible baselines."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def reset(self) -> None:
        """Start the random sequence again (matches call it before each game, so a game
        does not depend on the games before it)."""
        self._rng = random.Random(self.seed)

    def choose_move(self, board: Board) -> int:
        """A uniformly random legal move (``PASS`` when the side to move must pass)."""
        moves = list(board.legal_moves)
        if not moves:
            if board.must_pass():
                return PASS
            raise InvalidBoardError("the game is over: there is no move to choose")
        return self._rng.choice(moves)

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """The answer every player gives: a random move, no evaluation (``limit`` is
        accepted and has nothing to bound)."""
        if limit is not None and not isinstance(limit, Limit):
            raise TypeError(f"limit must be a cythello.Limit, not {type(limit).__name__}")
        return PlayResult(self.choose_move(board), None, {})

    def __repr__(self) -> str:
        return "RandomPlayer()"
