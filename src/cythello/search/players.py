"""Players: objects with ``choose_move(board)``.

Every player -- the searching ones built on the engine shell (:mod:`.engine`: UCT's
:class:`MCTSPlayer` in :mod:`.uct`, :class:`~cythello.PUCTPlayer` in :mod:`.puct`,
:class:`AlphaBetaPlayer` in :mod:`.alphabeta`), :class:`RandomPlayer`, the baseline, and
the external-engine players of :mod:`cythello.protocols.engine` -- follows the same
:class:`Player` protocol.  The searching players are importable from here as before.
"""
from __future__ import annotations

import random
from typing import Optional, Protocol

from ..core._board import Board
from ..errors import InvalidBoardError
from ._mcts import NODE_BYTES
from .alphabeta import AlphaBetaPlayer  # its own module; importable from here as before
from .engine import EnginePlayer  # noqa: F401  (its home: search/engine.py)
from .presets import CLASSIC, PRESETS
from .results import MoveStats, SearchResult
from .uct import (
    MCTSPlayer,
    _player_from_settings,  # noqa: F401  (players pickled before 0.4 name it)
)

__all__ = [
    "Player", "RandomPlayer", "MCTSPlayer", "AlphaBetaPlayer", "SearchResult", "MoveStats",
    "PRESETS", "CLASSIC", "NODE_BYTES",
]


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
        """A uniformly random legal move."""
        moves = list(board.legal_moves)
        if not moves:
            raise InvalidBoardError("the game is over: there is no move to choose")
        return self._rng.choice(moves)

    def __repr__(self) -> str:
        return "RandomPlayer()"
