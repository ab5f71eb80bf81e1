"""The engine protocol: what every searching player offers the front ends (the NBoard and
GTP engines, ``cythello play`` and ``analyse``, matches), whatever its search.

Three players keep it -- :class:`~cythello.MCTSPlayer` (UCT),
:class:`~cythello.PUCTPlayer` and :class:`~cythello.AlphaBetaPlayer` -- and share the
pieces it needs rather than each building its own: the concurrency contract and the
pondering job (:mod:`.turns`), one limit and one answer (:mod:`.limits`), the book move
(:mod:`.book_play`), the exact solver's hand-off (:mod:`.endgame_play`), game clocks
(:mod:`.clock`) and results (:mod:`.results`).  ``tests/test_contract.py`` checks the
protocol against all three.
"""
from __future__ import annotations

from typing import Callable, Optional, Protocol

from ..book.store import Book
from ..core._board import Board
from .clock import Clock
from .limits import Limit, PlayResult
from .results import SearchResult

__all__ = ["EnginePlayer"]


class EnginePlayer(Protocol):
    """What the NBoard and GTP engines, ``cythello play`` and ``analyse`` ask of a player
    (:class:`~cythello.MCTSPlayer`, :class:`~cythello.PUCTPlayer`,
    :class:`~cythello.AlphaBetaPlayer`): searches with limits for one search, a game clock
    and a stop from another thread, pondering, its opening book, a move within its own
    limits, one :class:`~cythello.Limit` and one answer, and a new game."""

    @property
    def book(self) -> Optional[Book]:
        """The opening book it plays from (None: none)."""
        ...

    @property
    def stops(self) -> int:
        """How many times :meth:`stop` was called."""
        ...

    def search(self, board: Board, iterations: Optional[int] = None,
               time_limit: Optional[float] = None, *, clock: Optional[Clock] = None,
               solve: bool = True, stops_seen: Optional[int] = None,
               on_progress: Optional[Callable[[SearchResult], None]] = None,
               book: bool = True, limit: Optional[Limit] = None) -> SearchResult:
        """Search ``board`` within these limits (or ``limit``, or the player's own),
        reporting progress to ``on_progress``; ``book=False`` searches a position of its
        book too."""
        ...

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Search ``board`` within ``limit`` (the player's own limits without one): the
        move, the evaluation in discs and the search's figures."""
        ...

    def stop(self) -> None:
        """End the running search (and pondering) soon, from another thread."""
        ...

    def ponder(self, board: Board) -> None:
        """Search ``board`` in the background until the next search."""
        ...

    def stop_pondering(self) -> None:
        """End pondering and wait for it."""
        ...

    def choose_move(self, board: Board) -> int:
        """The move to play on ``board`` within the player's own limits."""
        ...

    def reset(self) -> None:
        """Forget the game (its tree and pondering): the next position is unrelated."""
        ...
