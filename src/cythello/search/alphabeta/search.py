"""The classic engine: iterative-deepening alpha-beta (:mod:`~cythello.search.alphabeta._midgame`:
PVS, a transposition table, move ordering, Multi-ProbCut) on the learned evaluation, as a
player that serves every front end the tree searches serve.

:class:`AlphaBetaPlayer` keeps the engine protocol of
:class:`~cythello.search.players.EnginePlayer`: the opening book, the exact solver near
the end, time, node and depth limits, a game clock, ``stop()`` from another thread,
pondering (the table it fills is kept for the search that follows), progress reports after
each depth, and the concurrency contract of :mod:`~cythello.search.turns`.  Its
``iterations`` are nodes: a search's budget in nodes visited, as an MCTS's is in
iterations.

A search reports the depth it finished (``SearchResult.depth``), its score in discs
(``value``), the principal variation, the nodes and, with Multi-ProbCut, how sure each cut
was (``probability``: Edax's "selectivity", 0.87 for ``probcut=1.5``).
"""
from __future__ import annotations

import functools
import threading
import time
from typing import Any, Callable, Optional, Set, Tuple

from ...book.store import load_book
from ...core._board import Board
from ...errors import SettingsError
from ...eval._patterns import PatternWeights
from .. import _interruptible
from ..clock import Clock
from ..endgame.play import SolverPace, plays_selective, solve_seconds, starts_with_solve
from ..engine import Budget, Engine, Work
from ..limits import search_budget
from ..results import DISC_SCALE, MoveStats, SearchResult, win_rate_of
from ..settings import load_eval_weights
from ..states import StopReason
from ._midgame import MidgameSearch
from .settings import DEFAULT_PROBCUT, MAX_ALPHABETA_DEPTH, AlphaBetaSettings

__all__ = ["AlphaBetaPlayer", "AlphaBetaSearch"]

# An iteration costs a few times the one before it (two plies deeper: 2.5 times at the
# median with Multi-ProbCut 1.5, 5.5 full width, on the midgame benchmark): under
# a game clock one that cannot finish in the time left is not started, so that the clock
# keeps that time.  With a fixed time a move, time left is lost: the next iteration starts
# anyway, and when cut short plays any move it proved better than the last depth's.
NEXT_ITERATION_FACTOR = 2.5
# Without a time limit, the exact solver gets as long as it needs (its positions are
# endgame_empties or fewer, milliseconds at the default 14): a day, the most a solve takes.
UNTIMED_SOLVE = 86_400.0
# The most empties endgame_by_time solves from (the expert preset's limit too).
MAX_TIMED_SOLVE_EMPTIES = 26

class AlphaBetaSearch:
    """The alpha-beta backend (:class:`~cythello.search.engine.SearchBackend`):
    iterative deepening of :class:`~cythello.search.alphabeta._midgame.MidgameSearch`, one depth per
    step, its table kept between searches after pondering."""

    accepts_depth = True
    book_scale = DISC_SCALE
    progress_interval = 0.0        # a report after each depth: an iteration is not cut

    def __init__(self, settings: AlphaBetaSettings, weights: PatternWeights) -> None:
        self.settings = settings
        self.threads = settings.search_threads
        self.search = MidgameSearch(weights, settings.table_bits, self.threads)
        self.keep = False          # whether the table holds pondering's work to reuse
        self._stop = False
        self._depth = 0            # the deepest iteration to run
        self._last = 0.0           # seconds the last iteration took
        self._nodes: Optional[int] = None
        self._empties = 0
        self._banked = False       # whether time left unused is kept (a clock)

    def budget(self, board: Board, iterations: Optional[int], time_limit: Optional[float],
               clock: Optional[Clock], depth: Optional[int]) -> Budget:
        s = self.settings
        deepest = s.max_depth
        if s.depth is None and (iterations is not None or time_limit is not None
                                or clock is not None):
            deepest = MAX_ALPHABETA_DEPTH          # the call's limits bound it instead
        nodes, seconds = search_budget((s.nodes, s.time_limit), s.nodes, iterations,
                                       time_limit, clock, board.empties())
        if depth is not None:
            deepest = depth
            if iterations is None and time_limit is None and clock is None:
                seconds = nodes = None             # a depth alone: no other limit
        return Budget(nodes, seconds, deepest, banked=clock is not None)

    def plays_selective(self, board: Board, budget: Budget, pace: SolverPace) -> bool:
        return plays_selective(board, self.settings.selective_empties, budget.seconds,
                               budget.iterations, pace)

    def solve_time(self, board: Board, seconds: Optional[float],
                   pace: SolverPace) -> Optional[float]:
        """From ``endgame_empties`` always (untimed: as long as it takes), and with
        ``endgame_by_time`` also from as many empties (at most 26) as half the time
        settles at the solver's pace (the tree searches' rule,
        :func:`~.endgame.play.starts_with_solve`, with 26 as its most)."""
        s = self.settings
        if board.empties() <= s.endgame_empties or (
                s.endgame_by_time and seconds is not None and starts_with_solve(
                    board, MAX_TIMED_SOLVE_EMPTIES, True, seconds, pace)):
            return solve_seconds(seconds) if seconds is not None else UNTIMED_SOLVE
        return None

    def begin(self, board: Board, budget: Budget) -> None:
        self.search.begin(board, self.settings.probcut, keep=self.keep)
        self.keep = False
        assert budget.depth is not None
        self._depth = min(budget.depth, MAX_ALPHABETA_DEPTH)
        self._last = 0.0
        self._nodes = budget.iterations
        self._empties = board.empties()
        self._banked = budget.banked

    def grow(self, until: Optional[float], deadline: Optional[float]) -> Optional[StopReason]:
        """The next depth's iteration (an iteration is not paused: ``until`` is not
        used), or why the search ends."""
        search = self.search
        d = search.next_depth(self._depth)
        if d > self._depth or d > self._empties:
            return StopReason.SOLVED if d > self._empties else StopReason.DEPTH
        now = time.monotonic()
        left = None if deadline is None else deadline - now
        if d > 1 and self._banked and left is not None and \
                left < self._last * NEXT_ITERATION_FACTOR:
            return StopReason.TIME               # it could not finish: keep the time
        budget = None if self._nodes is None else self._nodes - search.nodes
        if d > 1 and budget is not None and budget <= 0:
            return StopReason.ITERATIONS         # its nodes are its iterations
        finished = _interruptible.call(
            functools.partial(search.iterate, d, None if left is None else max(left, 0.0),
                              budget),
            search.stop, left, search.clear_stop)
        self._last = time.monotonic() - now
        if not finished:
            if self._stop:
                return StopReason.STOPPED
            return StopReason.TIME if deadline is not None and time.monotonic() >= deadline \
                else StopReason.ITERATIONS
        return None

    def unsettled(self) -> bool:
        return False

    def result(self, board: Board, start: float, reason: StopReason) -> SearchResult:
        search = self.search
        score = search.score
        win_rate = win_rate_of(score)
        stats = MoveStats(search.move, 0, win_rate, None, None, score)
        return SearchResult(
            best_move=search.move, iterations=search.nodes, root_visits=0,
            nodes=search.nodes, elapsed=time.monotonic() - start, win_rate=win_rate,
            principal_variation=search.principal_variation(), moves=[stats],
            stop_reason=reason, value=score, depth=search.depth,
            probability=search.probability)

    def finish(self) -> None:
        pass

    def ponder(self, board: Board, inside: Set[int]
               ) -> Optional[Tuple[str, Work, Callable[[], None], Optional[Callable[[], None]]]]:
        search = self.search
        search.clear_stop()
        search.begin(board, self.settings.probcut)
        end = threading.Event()
        self.keep = True
        return ("cythello-alphabeta-ponder", [(_ponder_loop, (search, end, inside))],
                functools.partial(_halt, end, search), search.clear_stop)

    def stop(self) -> None:
        self._stop = True
        self.search.stop()

    def clear_stop(self) -> None:
        self._stop = False
        self.search.clear_stop()

    def forget(self) -> None:
        self.keep = False


class AlphaBetaPlayer(Engine):
    """A classic alpha-beta player on the learned evaluation (see the module), solving
    exactly from ``endgame_empties``: the engine shell (:class:`~.engine.Engine`) with the
    alpha-beta search.  It searches ``depth`` plies (10 by default), or with
    ``time_limit`` (seconds a move) as deep as the time allows, up to ``depth`` when given
    (the deepest iteration that finished plays); ``probcut`` (Multi-ProbCut's width, 1.5
    by default) makes the search selective: much deeper in the same time; ``probcut=None``
    searches full width.  Its settings are one
    :class:`AlphaBetaSettings` (``player.settings``): pass one, or its fields by name.
    ``on_progress(snapshot)`` is called after each finished depth."""

    def __init__(self, depth: Optional[int] = None, endgame_empties: int = 14,
                 eval_weights: Any = "default", time_limit: Optional[float] = None,
                 probcut: Optional[float] = DEFAULT_PROBCUT, *,
                 settings: Optional[AlphaBetaSettings] = None,
                 on_progress: Optional[Callable[[SearchResult], None]] = None,
                 **options: Any) -> None:
        if settings is not None and not isinstance(settings, AlphaBetaSettings):
            raise TypeError(f"settings must be AlphaBetaSettings, not {type(settings).__name__}")
        if time_limit is not None:        # else it may come as its synonym, time=
            options["time_limit"] = time_limit
        given = AlphaBetaSettings.named(dict(depth=depth, endgame_empties=endgame_empties,
                                             eval_weights=eval_weights, probcut=probcut,
                                             **options))
        if settings is None:
            settings = AlphaBetaSettings(**given)
        else:
            defaults = AlphaBetaSettings()
            settings = settings.replace(**{k: v for k, v in given.items()
                                           if v != getattr(defaults, k)})
        weights = load_eval_weights(settings.eval_weights)
        if weights is None:
            raise SettingsError("AlphaBetaPlayer needs evaluation weights")
        self.eval_weights: PatternWeights = weights
        self._alphabeta = AlphaBetaSearch(settings, weights)
        super().__init__(settings, self._alphabeta, load_book(settings.book), on_progress)
        self.settings: AlphaBetaSettings = settings

    # The settings by name, as the old constructor's attributes.
    @property
    def depth(self) -> int:
        return self.settings.max_depth

    @property
    def time_limit(self) -> Optional[float]:
        return self.settings.time_limit

    @property
    def probcut(self) -> Optional[float]:
        return self.settings.probcut

    @property
    def endgame_empties(self) -> int:
        return self.settings.endgame_empties

    def __reduce__(self) -> Any:
        return (_player, (self.settings,))

    def __repr__(self) -> str:
        s = self.settings
        limit = f", time_limit={s.time_limit}" if s.time_limit is not None else ""
        limit += f", nodes={s.nodes}" if s.nodes is not None else ""
        cut = f", probcut={s.probcut}" if s.probcut is not None else ""
        cut += f", threads={s.threads}" if s.threads != 1 else ""
        return (f"AlphaBetaPlayer(depth={self.depth}, endgame_empties={s.endgame_empties}"
                f"{limit}{cut})")


def _ponder_loop(search: MidgameSearch, end: threading.Event, inside: Set[int]) -> None:
    """A pondering thread: deepen the position :meth:`AlphaBetaPlayer.ponder` set until
    ``end`` (each of the player's turns sets it, stops the search and waits)."""
    me = threading.get_ident()
    inside.add(me)
    try:
        d = search.next_depth(MAX_ALPHABETA_DEPTH)
        while not end.is_set() and d <= MAX_ALPHABETA_DEPTH:
            if not search.iterate(d):
                break
            d = search.next_depth(MAX_ALPHABETA_DEPTH)
    finally:
        inside.discard(me)


def _halt(end: threading.Event, search: MidgameSearch) -> None:
    end.set()
    search.stop()


def _player(settings: AlphaBetaSettings) -> AlphaBetaPlayer:
    return AlphaBetaPlayer(settings=settings)
