"""The classic engine: iterative-deepening alpha-beta (:mod:`~cythello.search._midgame`:
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
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Optional, Set

from ..book.store import Book, load_book
from ..core._board import Board
from ..errors import InvalidBoardError, SettingsError
from ..eval._patterns import PatternWeights
from . import _interruptible
from ._endgame import Solver
from ._midgame import MidgameSearch
from .book_play import book_result
from .clock import Clock
from .endgame_play import SolverPace, exact_result, solve_seconds, starts_with_solve
from .limits import Limit, PlayResult, call_limits, play_result, search_budget
from .results import DISC_SCALE, MoveStats, SearchResult, win_rate_of
from .settings import (
    _BOOK,
    _FLAG,
    _SECONDS,
    _SEED,
    _WEIGHTS,
    MAX_ITERATIONS,
    SettingsType,
    _int,
    _number,
    _setting,
    check_fields,
    load_eval_weights,
)
from .states import StopReason
from .turns import PonderJob, Turns

__all__ = ["AlphaBetaPlayer", "AlphaBetaSettings", "MAX_ALPHABETA_DEPTH", "MAX_PROBCUT"]

DEFAULT_ALPHABETA_DEPTH = 2        # the depth of a player given neither depth nor time
MAX_ALPHABETA_DEPTH = 60           # the midgame search's MAX_DEPTH
MAX_PROBCUT = 10.0                 # the midgame search's own limit
DEFAULT_TABLE_BITS = 16            # 4 MB (see the table size's measurement: docs)
# An iteration costs a few times the one before it (more with a full-width search): one
# that cannot finish in the time left is not started, so that a clock keeps that time.
NEXT_ITERATION_FACTOR = 2.0
# Without a time limit, the exact solver gets as long as it needs (its positions are
# endgame_empties or fewer, milliseconds at the default 14): a day, the most a solve takes.
UNTIMED_SOLVE = 86_400.0
# The most empties endgame_by_time solves from (the expert preset's limit too).
MAX_TIMED_SOLVE_EMPTIES = 26


@dataclass(frozen=True)
class AlphaBetaSettings(SettingsType):
    """Every setting of the alpha-beta player, checked once when made (immutable; derive
    with :meth:`replace`).  Without a depth, a time or a node limit a search goes 2 plies
    deep; with a time or node limit, as deep as it allows (``depth`` then caps it)."""

    KIND: ClassVar[str] = "alpha-beta"

    depth: Optional[int] = _setting(None, _int(1, MAX_ALPHABETA_DEPTH),
                                    "the deepest iteration of a search", optional=True)
    time_limit: Optional[float] = _setting(None, _SECONDS, "seconds per search",
                                           optional=True)
    nodes: Optional[int] = _setting(None, _int(1, MAX_ITERATIONS), "nodes per search (its "
                                    "iterations; with time_limit: whichever comes first)",
                                    optional=True)
    probcut: Optional[float] = _setting(
        None, _number(0, MAX_PROBCUT, low_open=True), "Multi-ProbCut's width in standard "
        "deviations (1.5: each cut 87 % sure; None: a full-width search)", optional=True)
    endgame_empties: int = _setting(14, _int(0, 30), "solve exactly from this many empty "
                                    "squares (0: never)")
    endgame_by_time: bool = _setting(True, _FLAG, "with a time limit, also solve from as "
                                     "many empties (at most 26) as half the time affords at "
                                     "the solver's measured speed")
    eval_weights: Any = _setting("default", _WEIGHTS, "the pattern evaluation: 'default' "
                                 "(the shipped weights), a weights file or PatternWeights")
    table_bits: int = _setting(DEFAULT_TABLE_BITS, _int(10, 24), "the transposition "
                               "table: 2 ** table_bits buckets of two 32-byte entries "
                               "(16: 4 MB; each bit more doubles it)")
    book: Any = _setting(None, _BOOK, "the opening book: 'default', a book file or a Book "
                         "(None: no book)", optional=True)
    book_variety: float = _setting(0.0, _number(0, 64), "discs: a book move is drawn among "
                                   "those within this of the best (0: the best)")
    seed: Optional[int] = _setting(None, _SEED, "seeds the book's draws", optional=True)

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def max_depth(self) -> int:
        """The deepest a search goes: ``depth``, else 2 without a time or node limit, else
        all."""
        if self.depth is not None:
            return self.depth
        if self.time_limit is None and self.nodes is None:
            return DEFAULT_ALPHABETA_DEPTH
        return MAX_ALPHABETA_DEPTH


class AlphaBetaPlayer:
    """A classic alpha-beta player on the learned evaluation (see the module), solving
    exactly from ``endgame_empties``.  It searches ``depth`` plies (2 by default), or with
    ``time_limit`` (seconds a move) as deep as the time allows, up to ``depth`` when given
    (the deepest iteration that finished plays); ``probcut`` makes the search selective
    (Multi-ProbCut, e.g. 1.5): much deeper in the same time.  Its settings are one
    :class:`AlphaBetaSettings` (``player.settings``): pass one, or its fields by name."""

    def __init__(self, depth: Optional[int] = None, endgame_empties: int = 14,
                 eval_weights: Any = "default", time_limit: Optional[float] = None,
                 probcut: Optional[float] = None, *, settings: Optional[AlphaBetaSettings] = None,
                 **options: Any) -> None:
        if settings is not None and not isinstance(settings, AlphaBetaSettings):
            raise TypeError(f"settings must be AlphaBetaSettings, not {type(settings).__name__}")
        given = dict(depth=depth, endgame_empties=endgame_empties, eval_weights=eval_weights,
                     time_limit=time_limit, probcut=probcut, **options)
        if settings is None:
            self.settings = AlphaBetaSettings(**given)
        else:
            defaults = AlphaBetaSettings()
            self.settings = settings.replace(**{k: v for k, v in given.items()
                                                if v != getattr(defaults, k)})
        weights = load_eval_weights(self.settings.eval_weights)
        if weights is None:
            raise SettingsError("AlphaBetaPlayer needs evaluation weights")
        self.eval_weights: PatternWeights = weights
        self.book: Optional[Book] = load_book(self.settings.book)
        self._book_rng = random.Random(self.settings.seed)
        self._search = MidgameSearch(weights, self.settings.table_bits)
        self._solver = Solver()
        self._pace = SolverPace()               # the solver's speed, for endgame_by_time
        self._turns = Turns(self._end_pondering)
        self._stops = 0
        self._stop = False
        self._keep = False          # whether the table holds pondering's work to reuse
        self._pondering: Optional[PonderJob] = None    # see turns.PonderJob

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
        return (f"AlphaBetaPlayer(depth={self.depth}, endgame_empties={s.endgame_empties}"
                f"{limit}{cut})")

    # -- the engine protocol ----------------------------------------------------------------

    @property
    def stops(self) -> int:
        """How many times :meth:`stop` was called (for ``search(stops_seen=...)``)."""
        return self._stops

    def stop(self) -> None:
        """End the running search soon, and pondering (from any thread)."""
        self._stops += 1
        self._stop = True
        self._search.stop()
        self._solver.stop()
        job = self._pondering
        if job is not None:
            job.signal()

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Search ``board`` within ``limit`` (the settings' limits without one): the move,
        the score in discs and the search's figures (``depth``, ``nodes``, ``pv``)."""
        return play_result(self.search(board, limit=limit))

    def reset(self) -> None:
        """A new game: the table's work is not reused, the book's draws start again."""
        with self._turns.turn("reset()"):
            self._keep = False
            self._book_rng = random.Random(self.settings.seed)

    def choose_move(self, board: Board) -> int:
        """The move of the depth- or time-limited search (the book's, the exact solver's
        near the end)."""
        if not isinstance(board, Board):
            raise TypeError(f"choose_move needs a cythello.Board, not {type(board).__name__}")
        legal = list(board.legal_moves)
        if not legal:
            raise InvalidBoardError("the game is over: there is no move to choose")
        if len(legal) == 1:
            return legal[0]
        return self.search(board).best_move

    def search(self, board: Board, iterations: Optional[int] = None,
               time_limit: Optional[float] = None, *, clock: Optional[Clock] = None,
               solve: bool = True, stops_seen: Optional[int] = None,
               on_progress: Optional[Callable[[SearchResult], None]] = None,
               book: bool = True, limit: Optional[Limit] = None) -> SearchResult:
        """Search ``board``: iterative deepening to the settings' depth within
        ``time_limit`` seconds and ``iterations`` nodes (either replaces the settings'
        limits for this search only; a game ``clock`` sets the time from the time left,
        never more).  ``on_progress(snapshot)`` is called after each finished depth.
        ``solve=False`` skips the exact solver, ``book=False`` the book; with
        ``stops_seen`` (:attr:`stops` read earlier) a :meth:`stop` since ends it at once.
        ``limit`` (a :class:`~cythello.Limit`) gives the nodes, time, depth and clock in
        one object instead."""
        iterations, time_limit, clock, depth_cap = call_limits(
            limit, iterations, time_limit, clock, depth_allowed=True)
        if not isinstance(board, Board):
            raise TypeError(f"search needs a cythello.Board, not {type(board).__name__}")
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        if board.is_game_over():
            raise InvalidBoardError("the game is over: there is no move to search")
        depth = self.settings.max_depth
        if self.settings.depth is None and (iterations is not None or time_limit is not None
                                            or clock is not None):
            depth = MAX_ALPHABETA_DEPTH          # the call's limits bound it instead
        own = (self.settings.nodes, self.settings.time_limit)
        nodes, seconds = search_budget(own, self.settings.nodes, iterations, time_limit,
                                       clock, board.empties())
        if depth_cap is not None:
            depth = depth_cap
            if iterations is None and time_limit is None and clock is None:
                seconds = nodes = None            # a depth alone: no other limit
        with self._turns.turn("search()"):
            self._stop = stops_seen is not None and stops_seen != self._stops
            self._search.clear_stop()
            self._solver.clear_stop()
            if book and self.book is not None:
                played = self._book_move(board)
                if played is not None:
                    return played
            return self._deepen(board, depth, seconds, nodes, solve, on_progress)

    def ponder(self, board: Board) -> None:
        """Think on the opponent's time: search ``board`` (the opponent to move) on a
        background thread until the next call; the table it fills is kept for the next
        search, whose positions it shares."""
        if not isinstance(board, Board):
            raise TypeError(f"ponder needs a cythello.Board, not {type(board).__name__}")
        with self._turns.turn("ponder()"):
            if board.is_game_over():
                return
            self._search.clear_stop()
            self._search.begin(board, self.settings.probcut)
            end = threading.Event()
            search = self._search
            self._pondering = PonderJob(
                self, "cythello-alphabeta-ponder",
                [(_ponder_loop, (search, end, self._turns.pondering_threads))],
                halt=functools.partial(_halt, end, search), after=search.clear_stop)
            self._keep = True

    @property
    def pondering(self) -> bool:
        """Whether a background search started by :meth:`ponder` is running."""
        job = self._pondering
        return job is not None and job.alive()

    def stop_pondering(self) -> None:
        """End pondering, if any, and wait for it (its table stays for the next search)."""
        self._turns.end_pondering()

    def _end_pondering(self) -> None:
        job, self._pondering = self._pondering, None
        if job is not None:
            job.end()

    # -- the search -------------------------------------------------------------------------

    def _deepen(self, board: Board, depth: int, seconds: Optional[float],
                nodes: Optional[int], solve: bool,
                on_progress: Optional[Callable[[SearchResult], None]]) -> SearchResult:
        start = time.monotonic()
        deadline = None if seconds is None else start + seconds
        if self._stop:
            self._search.stop()
        if solve and not self._stop and self._solves(board, seconds):
            until = start + (solve_seconds(seconds) if seconds is not None else UNTIMED_SOLVE)
            exact = exact_result(board, self._solver, start, until, pace=self._pace)
            if exact is not None:
                self._keep = False
                return exact
        search = self._search
        search.begin(board, self.settings.probcut, keep=self._keep)
        self._keep = False
        reason = StopReason.DEPTH
        last = 0.0
        for d in range(1, min(depth, MAX_ALPHABETA_DEPTH) + 1):
            now = time.monotonic()
            left = None if deadline is None else deadline - now
            if d > 1 and left is not None and left < last * NEXT_ITERATION_FACTOR:
                reason = StopReason.TIME               # it could not finish: keep the time
                break
            budget = None if nodes is None else nodes - search.nodes
            if d > 1 and budget is not None and budget <= 0:
                reason = StopReason.ITERATIONS           # its nodes are its iterations
                break
            finished = _interruptible.call(
                functools.partial(search.iterate, d, None if left is None else max(left, 0.0),
                                  budget),
                search.stop, left, search.clear_stop)
            last = time.monotonic() - now
            if not finished:
                reason = StopReason.STOPPED if self._stop else (
                    StopReason.TIME if deadline is not None and time.monotonic() >= deadline
                    else StopReason.ITERATIONS)
                break
            if d >= board.empties():
                reason = StopReason.SOLVED             # the leaves are the game's end
                break
            if on_progress is not None:
                on_progress(self._result(start, StopReason.RUNNING))
        return self._result(start, reason)

    def _solves(self, board: Board, seconds: Optional[float]) -> bool:
        """Whether a search of ``seconds`` (None: untimed) starts with an exact solve: from
        ``endgame_empties`` always, and with ``endgame_by_time`` also from as many empties
        (at most 26) as half the time settles at the solver's pace (the tree searches'
        rule, :func:`~.endgame_play.starts_with_solve`, with 26 as its most)."""
        s = self.settings
        return board.empties() <= s.endgame_empties or (
            s.endgame_by_time and seconds is not None and starts_with_solve(
                board, MAX_TIMED_SOLVE_EMPTIES, True, seconds, self._pace))

    def _result(self, start: float, reason: StopReason) -> SearchResult:
        search = self._search
        score = search.score
        win_rate = win_rate_of(score)
        stats = MoveStats(search.move, 0, win_rate, None, None, score)
        return SearchResult(
            best_move=search.move, iterations=search.nodes, root_visits=0,
            nodes=search.nodes, elapsed=time.monotonic() - start, win_rate=win_rate,
            principal_variation=search.principal_variation(), moves=[stats],
            stop_reason=reason, value=score, depth=search.depth,
            probability=search.probability)

    def _book_move(self, board: Board) -> Optional[SearchResult]:
        """The opening book's answer for ``board``, or None outside the book."""
        return book_result(self.book, board, self.settings.book_variety, self._book_rng,
                           DISC_SCALE)


def _ponder_loop(search: MidgameSearch, end: threading.Event, inside: Set[int]) -> None:
    """A pondering thread: deepen the position :meth:`AlphaBetaPlayer.ponder` set until
    ``end`` (each of the player's turns sets it, stops the search and waits)."""
    me = threading.get_ident()
    inside.add(me)
    try:
        d = search.depth + 1
        while not end.is_set() and d <= MAX_ALPHABETA_DEPTH:
            if not search.iterate(d):
                break
            d += 1
    finally:
        inside.discard(me)


def _halt(end: threading.Event, search: MidgameSearch) -> None:
    end.set()
    search.stop()


def _player(settings: AlphaBetaSettings) -> AlphaBetaPlayer:
    return AlphaBetaPlayer(settings=settings)
