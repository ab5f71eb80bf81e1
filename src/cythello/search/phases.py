"""A search handed on as the game goes: a tree search (UCT or PUCT) that gives the last
moves of a game to the alpha-beta search.

Near the end, a selective alpha-beta search (Multi-ProbCut) picks better moves than a
tree search in the same time on the FFO endgame positions; in games, from 30 empties, it
played level with PUCT at 1 s and 4 s a move and lost at 0.25 s, so no level uses it
(docs/explanation/engine.md has the measurements).  ``alphabeta_empties`` on the tree
searches' settings turns the hand-off on: from that many empty squares, a search limited
by time is the alpha-beta search's, with the same time, the player's evaluation weights
and the player's exact-solver rule.  A search limited by iterations stays the tree's
(the two searches' units of work are not comparable), as does one at more empties.

:class:`PhasedSearch` is the backend (:class:`~.engine.SearchBackend`) that does it, so
that the engine shell (:class:`~.engine.Engine`) serves both phases unchanged: the book,
the solver, stops, pondering and the answer work as for either search alone.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Set, Tuple

from ..core._board import Board
from ..eval._patterns import PatternWeights
from ..eval.weights import default_weights
from .alphabeta import MAX_ALPHABETA_DEPTH, MAX_ENDGAME_EMPTIES, AlphaBetaSearch, AlphaBetaSettings
from .clock import Clock
from .endgame.play import SolverPace
from .engine import SearchBackend, Work
from .limits import Budget
from .results import SearchResult
from .states import StopReason

__all__ = ["PhasedSearch", "LATE_PROBCUT", "with_alphabeta_ending"]

# The alpha-beta search's Multi-ProbCut width: the alpha-beta player's, chosen by its
# equal-time matches (docs/results/strength.md).
LATE_PROBCUT = 1.5


class PhasedSearch:
    """A backend that searches with ``early`` until ``empties`` empty squares and with
    ``late`` (the alpha-beta search) from there, for searches limited by time (see the
    module).  Each search's :meth:`budget` picks the backend; the rest follows it."""

    def __init__(self, early: SearchBackend, late: AlphaBetaSearch, empties: int) -> None:
        self.early = early
        self.late = late
        self.empties = empties
        self.active: SearchBackend = early
        self.accepts_depth = early.accepts_depth
        self.threads = early.threads

    @property
    def book_scale(self) -> float:
        return self.active.book_scale

    @property
    def progress_interval(self) -> float:
        return self.active.progress_interval

    def _late(self, board: Board) -> bool:
        return board.empties() <= self.empties

    def budget(self, board: Board, iterations: Optional[int], time_limit: Optional[float],
               clock: Optional[Clock], depth: Optional[int]) -> Budget:
        own = self.early.budget(board, iterations, time_limit, clock, depth)
        if self._late(board) and own.seconds is not None and own.iterations is None:
            self.active = self.late
            return Budget(None, own.seconds, MAX_ALPHABETA_DEPTH, banked=own.banked)
        self.active = self.early
        return own

    def solve_time(self, board: Board, seconds: Optional[float],
                   pace: SolverPace) -> Optional[float]:
        return self.active.solve_time(board, seconds, pace)

    def plays_selective(self, board: Board, budget: Budget, pace: SolverPace) -> bool:
        # The player's own settings decide (the tree search's), not the alpha-beta
        # settings made for the late phase.
        return self.early.plays_selective(board, budget, pace)

    def begin(self, board: Board, budget: Budget) -> None:
        if self.active is self.late:
            self.early.forget()                  # the tree is not followed from here
        self.active.begin(board, budget)

    def grow(self, until: Optional[float], deadline: Optional[float]) -> Optional[StopReason]:
        return self.active.grow(until, deadline)

    def unsettled(self) -> bool:
        return self.active.unsettled()

    def result(self, board: Board, start: float, reason: StopReason) -> SearchResult:
        return self.active.result(board, start, reason)

    def finish(self) -> None:
        self.active.finish()

    def ponder(self, board: Board, inside: Set[int]
               ) -> Optional[Tuple[str, Work, Callable[[], None], Optional[Callable[[], None]]]]:
        return (self.late if self._late(board) else self.early).ponder(board, inside)

    def stop(self) -> None:
        self.early.stop()
        self.late.stop()

    def clear_stop(self) -> None:
        self.early.clear_stop()
        self.late.clear_stop()

    def forget(self) -> None:
        self.early.forget()
        self.late.forget()


def with_alphabeta_ending(early: SearchBackend, settings: Any,
                          weights: Optional[PatternWeights]) -> SearchBackend:
    """``early`` as the tree search's settings ask: handing on to the alpha-beta search
    from ``settings.alphabeta_empties`` (with ``weights``, the shipped ones when None, and
    the settings' exact-solver rule and threads), or unchanged when that is 0."""
    if not settings.alphabeta_empties:
        return early
    late = AlphaBetaSettings(probcut=LATE_PROBCUT,
                             endgame_empties=min(settings.endgame_empties, MAX_ENDGAME_EMPTIES),
                             endgame_by_time=settings.endgame_by_time,
                             threads=early.threads, seed=settings.seed)
    return PhasedSearch(early, AlphaBetaSearch(late, weights or default_weights()),
                        settings.alphabeta_empties)
