"""One engine over interchangeable searches.

:class:`Engine` is the shell every searching player is: it owns each phase a search
shares -- the call's limits, the concurrency contract (:mod:`.turns`), the stop, the
opening book's move, the exact solver's hand-off (:mod:`.endgame.play`), the clock's time
extension, the progress reports, pondering and the answer -- and hands the growing of the
search to a :class:`SearchBackend`: set the root (keeping what can be reused), grow within a
budget and a deadline, report the root's statistics and the principal variation, stop.

Three backends plug in: UCT (:mod:`.uct`, :class:`~cythello.MCTSPlayer`), PUCT
(:mod:`.puct`, :class:`~cythello.PUCTPlayer`) and the alpha-beta search
(:mod:`.alphabeta`, :class:`~cythello.AlphaBetaPlayer`); each player is the shell with its
backend and its settings type.  :class:`EnginePlayer` is what the front ends (NBoard, GTP,
``cythello play`` and ``analyse``, matches) ask of a player, and ``tests/test_contract.py``
checks it against all three.  The shape follows KataGo's ``AsyncBot`` over its ``Search``
and lc0's search factory: one owner of the game-facing work, searches that only search.
"""
from __future__ import annotations

import random
import time
import warnings
import weakref
from typing import Any, Callable, ClassVar, Dict, Optional, Protocol, Sequence, Set, Tuple

from ..book.store import Book
from ..core._board import Board
from ..errors import InvalidBoardError
from ..squares import PASS
from .book_play import book_result
from .clock import Clock
from .endgame._solver import Solver
from .endgame.play import (
    EndgameProgress,
    SolverPace,
    exact_result,
    plays_selective,
    run_reporting,
    selective_result,
    solve_time,
)
from .limits import Budget, Limit, PlayResult, call_limits, play_result, tree_budget
from .results import SearchResult
from .settings import DEFAULT_PROGRESS_INTERVAL
from .states import StopReason
from .turns import PonderJob, Turns

__all__ = ["EnginePlayer", "Engine", "SearchBackend", "TreeSearchRules", "Budget",
           "MIN_PROGRESS_INTERVAL"]

MIN_PROGRESS_INTERVAL = 0.001          # seconds between on_progress reports, at least

# A pondering thread's work: a function and its arguments (neither may hold the player).
Work = Sequence[Tuple[Callable[..., Any], Tuple[Any, ...]]]


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


class SearchBackend(Protocol):
    """What a search does for the :class:`Engine` shell.  It never holds the player (its
    pondering work may outlive a call), and every method but :meth:`stop` is called by
    the thread holding the player's turn."""

    accepts_depth: bool          # whether a depth limit means something to it
    threads: int                 # its threads (the exact solver's too)

    @property
    def book_scale(self) -> float:
        """Discs per logistic unit: the book's values as win rates."""
        ...

    @property
    def progress_interval(self) -> float:
        """Seconds between progress reports."""
        ...

    def budget(self, board: Board, iterations: Optional[int], time_limit: Optional[float],
               clock: Optional[Clock], depth: Optional[int]) -> Budget:
        """The call's limits (None: not given) with the settings' own, as one budget."""
        ...

    def solve_time(self, board: Board, seconds: Optional[float],
                   pace: SolverPace) -> Optional[float]:
        """The seconds a search of ``seconds`` gives an exact solve first (None: no solve)."""
        ...

    def plays_selective(self, board: Board, budget: Budget, pace: SolverPace) -> bool:
        """Whether the search of ``budget`` plays ``board`` by the selective endgame
        passes instead (from its settings' ``selective_empties``, by
        :func:`~.endgame.play.plays_selective`'s rule)."""
        ...

    def begin(self, board: Board, budget: Budget) -> None:
        """Root the search at ``board`` (reusing what it can) for a search of ``budget``."""
        ...

    def grow(self, until: Optional[float], deadline: Optional[float]) -> Optional[StopReason]:
        """Search on, returning by ``until`` when it can pause there (the next progress
        report) and never past ``deadline``: why it finished, or None when it paused."""
        ...

    def unsettled(self) -> bool:
        """Whether more time would help: the search has not made up its mind."""
        ...

    def result(self, board: Board, start: float, reason: StopReason) -> SearchResult:
        """What it found so far, as a result."""
        ...

    def finish(self) -> None:
        """After a search, returned or raised: leave the search usable."""
        ...

    def ponder(self, board: Board, inside: Set[int]
               ) -> Optional[Tuple[str, Work, Callable[[], None], Optional[Callable[[], None]]]]:
        """Background work on ``board`` (a thread name, the work, how to halt it, what to do
        once it has) or None when it does not ponder; its threads add themselves to
        ``inside`` while they run."""
        ...

    def stop(self) -> None:
        """End the search soon (from any thread)."""
        ...

    def clear_stop(self) -> None:
        """Ready for the next search."""
        ...

    def forget(self) -> None:
        """Drop what is kept for reuse (a new game, or an exact solve took the move)."""
        ...


class TreeSearchRules:
    """What the tree searches' backends (UCT, PUCT) share: the budget from their settings'
    limits, with the clock's time extension (:func:`~.limits.tree_budget`), and the exact
    solver's hand-off by :func:`~.endgame.play.solve_time`'s rule.  ``settings`` is the
    backend's settings."""

    settings: Any

    def budget(self, board: Board, iterations: Optional[int], time_limit: Optional[float],
               clock: Optional[Clock], depth: Optional[int]) -> Budget:
        return tree_budget(self.settings, board.empties(), iterations, time_limit, clock,
                           self.settings.time_extension)

    def solve_time(self, board: Board, seconds: Optional[float],
                   pace: SolverPace) -> Optional[float]:
        s = self.settings
        return solve_time(board, s.endgame_empties, s.endgame_by_time, seconds, pace)

    def plays_selective(self, board: Board, budget: Budget, pace: SolverPace) -> bool:
        return plays_selective(board, self.settings.selective_empties, budget.seconds,
                               budget.iterations, pace)


class Engine:
    """The shell of every searching player (see the module): the engine protocol over a
    :class:`SearchBackend`.  Subclasses make the backend from their settings and may
    change how a move is chosen from a search (:meth:`_choose`)."""

    # The positions of the old search() arguments after time_limit, by player, for calls
    # that still pass them so (keyword-only now: one signature for every player).
    LEGACY_ORDER: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, settings: Any, backend: SearchBackend, book: Optional[Book],
                 on_progress: Optional[Callable[[SearchResult], None]] = None) -> None:
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        self.settings = settings
        self.book: Optional[Book] = book
        self.on_progress = on_progress
        self._backend = backend
        self._book_rng = random.Random(settings.seed)
        self._solver = Solver(threads=backend.threads)
        self._pace = SolverPace()              # the solver's speed, for endgame_by_time
        # Through a weak reference: the player holds its Turns, and a Turns holding the
        # player back would leave a dropped player (and its pondering threads, its
        # tables) to the cycle collector instead of freeing it at once.
        self._turns = Turns(_weakly(self._end_pondering))
        self._stops = 0                        # stop() calls, over the player's life
        self._stopped = False                  # whether the search under way was stopped
        self._pondering: Optional[PonderJob] = None

    # -- the engine protocol ----------------------------------------------------------------

    def choose_move(self, board: Board) -> int:
        """The move to play on ``board`` within the player's own limits (a forced move at
        once, without a search)."""
        if not isinstance(board, Board):
            raise TypeError(f"choose_move needs a cythello.Board, not {type(board).__name__}")
        legal = list(board.legal_moves)
        if not legal:
            raise InvalidBoardError("the game is over: there is no move to choose")
        if len(legal) == 1:
            self.stop_pondering()
            return legal[0]
        return self._choose(board, self.search(board))

    def _choose(self, board: Board, result: SearchResult) -> int:
        return result.best_move

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Search ``board`` within ``limit`` (the settings' limits without one) and answer
        as every player and engine client does: the move, the evaluation in discs and the
        search's figures in ``info``."""
        return play_result(self.search(board, limit=limit))

    @property
    def stops(self) -> int:
        """How many times :meth:`stop` was called: read it before deciding to search and
        pass it as ``search(stops_seen=...)``, so that a stop that comes in between still
        stops that search (a stop is otherwise only for a search already running)."""
        return self._stops

    def stop(self) -> None:
        """End the running search (and pondering) soon, from any thread; a search returns
        what it has."""
        self._stops += 1
        self._stopped = True
        self._solver.stop()
        self._backend.stop()
        job = self._pondering                  # read once: another thread may end it
        if job is not None:
            job.signal()

    def reset(self) -> None:
        """A new game: forget what is kept for reuse (pondering ends first) and start the
        book's draws again from the seed.  While the player searches in another thread it
        waits for the search to return (:mod:`~cythello.search.turns`)."""
        with self._turns.turn("reset()"):
            self._backend.forget()
            # A match resets its players before each game: with a seed, the book's draws
            # of a game then do not depend on the games before it.
            self._book_rng = random.Random(self.settings.seed)

    def search(self, board: Board, iterations: Optional[int] = None,
               time_limit: Optional[float] = None, *legacy: Any,
               clock: Optional[Clock] = None, solve: bool = True,
               stops_seen: Optional[int] = None,
               on_progress: Optional[Callable[[SearchResult], None]] = None,
               book: bool = True, limit: Optional[Limit] = None) -> SearchResult:
        """Search ``board`` and return a :class:`~cythello.search.results.SearchResult`.

        ``iterations`` (the search's unit of work) and ``time_limit`` replace the player's
        limits for this search only; a game ``clock`` sets the time from the time left
        (never more, so the clock never runs out), the settings' iteration cap (a level's)
        still holding unless the call gives limits; ``limit`` (a :class:`~cythello.Limit`)
        gives them all in one object instead.  In a position of the player's opening book
        the answer is a book move, at once (``stop_reason`` "book"; ``book=False``
        searches anyway).  ``solve=False`` skips the exact solver near the end.
        ``on_progress(snapshot)`` is called while the search runs.  With ``stops_seen``
        (:attr:`stops` read earlier) a :meth:`stop` that came since ends this search at
        once.  Calls from several threads run one after another, and a search ends
        pondering first (:mod:`~cythello.search.turns`)."""
        if legacy:
            extra = self._legacy_arguments(legacy)
            clock = extra.get("clock", clock)
            solve = extra.get("solve", solve)
            stops_seen = extra.get("stops_seen", stops_seen)
            on_progress = extra.get("on_progress", on_progress)
            book = extra.get("book", book)
        backend = self._backend
        iterations, time_limit, clock, depth = call_limits(
            limit, iterations, time_limit, clock, depth_allowed=backend.accepts_depth)
        if not isinstance(board, Board):
            raise TypeError(f"search needs a cythello.Board, not {type(board).__name__}")
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        if board.is_game_over():
            raise InvalidBoardError("the game is over: there is no move to search")
        with self._turns.turn("search()"):
            # In the turn: a budget picks the phase of a backend that hands the end of the
            # game on (PhasedSearch), which a search running in another thread still uses.
            budget = backend.budget(board, iterations, time_limit, clock, depth)
            # Cleared before the stops are compared: a stop() from now on stops this search.
            self._stopped = False
            self._solver.clear_stop()
            backend.clear_stop()
            if stops_seen is not None and stops_seen != self._stops:
                self._stopped = True             # a stop came between the caller's
                self._solver.stop()              # decision and this turn: keep it
                backend.stop()
            if book and self.book is not None:
                played = book_result(self.book, board, self.settings.book_variety,
                                     self._book_rng, backend.book_scale, backend.threads)
                if played is not None:
                    return played
            try:
                return self._run(board, budget, solve, on_progress or self.on_progress,
                                 self._turns.taken_at)
            finally:
                backend.finish()

    def _legacy_arguments(self, values: Tuple[Any, ...]) -> Dict[str, Any]:
        if len(values) > len(self.LEGACY_ORDER):
            raise TypeError("search() takes at most 3 positional arguments besides the "
                            "player; give the others by name (clock=, solve=, ...)")
        names = self.LEGACY_ORDER[:len(values)]
        warnings.warn(f"search() arguments after time_limit are keyword-only now: pass "
                      f"{', '.join(n + '=' for n in names)} by name", DeprecationWarning,
                      stacklevel=3)
        return dict(zip(names, values))

    def _run(self, board: Board, budget: Budget, solve: bool,
             on_progress: Optional[Callable[[SearchResult], None]],
             start: float) -> SearchResult:
        """The search, once the book has no move: an exact solve near the end (half the
        time; the search keeps the rest if the solve does not finish), then the backend
        grows within the budget, reporting progress, with the clock's extension for an
        unsettled position.  The time counts from ``start``, when the search got the
        player (ending its pondering is part of the move)."""
        backend = self._backend
        interval = max(backend.progress_interval, MIN_PROGRESS_INTERVAL)
        # A search that reports each finished step (alpha-beta's depths) has no interval;
        # its solves report as often as the tree searches do by default.
        solve_interval = (interval if backend.progress_interval > 0 else
                          getattr(self.settings, "progress_interval", DEFAULT_PROGRESS_INTERVAL))
        if solve and not self._stopped and backend.plays_selective(board, budget, self._pace):
            # The selective passes with the whole time (their last pass is the exact solve).
            assert budget.seconds is not None
            end = start + budget.seconds
            report = self._endgame_progress(board, start, on_progress)
            passes = run_reporting(
                lambda: selective_result(board, self._solver, start, end,
                                         backend.threads, self._pace, on_pass=report.add),
                on_progress, solve_interval, report, self._solver.stop)
            if passes is not None:
                backend.forget()                 # the tree no longer matches the game
                if self._stopped and passes.stop_reason != StopReason.EXACT:
                    passes.stop_reason = StopReason.STOPPED
                return passes
        elif solve and not self._stopped:
            seconds = backend.solve_time(board, budget.seconds, self._pace)
            if seconds is not None:
                # The rest of the move goes to a solve that has a move to play only when
                # time is what ends the search (a tree search with iterations to do would
                # end before its time cap).
                until = (start + budget.seconds if budget.seconds is not None
                         and budget.iterations is None else None)
                exact = run_reporting(
                    lambda: exact_result(board, self._solver, start, start + seconds,
                                         backend.threads, self._pace, until=until),
                    on_progress, solve_interval,
                    self._endgame_progress(board, start, on_progress),
                    self._solver.stop)
                if exact is not None:
                    backend.forget()             # the tree no longer matches the game
                    return exact
        backend.begin(board, budget)
        if self._stopped:                        # stopped before or during the solve
            backend.stop()
        deadline = None if budget.seconds is None else start + budget.seconds
        extra = budget.extra
        while True:
            until = deadline
            if on_progress is not None:
                tick = time.monotonic() + interval
                until = tick if deadline is None else min(deadline, tick)
            reason = backend.grow(until, deadline)
            out_of_time = deadline is not None and time.monotonic() >= deadline
            if reason is None and out_of_time and extra > 0 and not self._stopped \
                    and budget.seconds is not None and backend.unsettled():
                # Time extension (Huang, Coulom and Lin 2010): in steps of half the budget.
                step = min(extra, budget.seconds / 2)
                extra -= step
                deadline = time.monotonic() + step
                continue
            if reason is not None or out_of_time or self._stopped:
                break
            if on_progress is not None:
                on_progress(backend.result(board, start, StopReason.RUNNING))
        if reason is None:
            reason = StopReason.TIME if out_of_time else StopReason.STOPPED
        return backend.result(board, start, reason)

    def _endgame_progress(self, board: Board, start: float,
                          on_progress: Optional[Callable[[SearchResult], None]]
                          ) -> EndgameProgress:
        """What the endgame phase reports while it solves; until a pass finishes, the
        move a 1-ply search over the solver's evaluation prefers (microseconds, and only
        when someone asks for progress)."""
        moves = list(board.legal_moves)
        provisional = moves[0] if moves else PASS
        if on_progress is not None and self._solver.weights is not None and len(moves) > 1:
            def value(move: int) -> float:
                child = board.copy(stack=False)
                child.push(move)
                return -self._solver.evaluate_at(child, 1)
            provisional = max(moves, key=value)
        return EndgameProgress(board, start, self._backend.threads, provisional)

    # -- pondering --------------------------------------------------------------------------

    def ponder(self, board: Board) -> None:
        """Think on the opponent's time: search ``board`` (the position after this
        player's move, the opponent to move) in the background, and return at once.  It
        goes on until the next :meth:`search`, :meth:`choose_move`, :meth:`stop`,
        :meth:`reset` or :meth:`stop_pondering`; the next search then starts from what it
        found (the subtree of the position the opponent's move reached, or the filled
        table).  A finished game, or a position the exact solver will take, is not
        pondered (nor is anything by a tree search without ``reuse_tree``)."""
        if not isinstance(board, Board):
            raise TypeError(f"ponder needs a cythello.Board, not {type(board).__name__}")
        stops = self._stops                    # a stop() from here on ends this pondering
        backend = self._backend
        with self._turns.turn("ponder()"):
            if board.is_game_over():
                return
            own = backend.budget(board, None, None, None, None)
            if backend.solve_time(board, own.seconds, self._pace) is not None:
                return
            job = backend.ponder(board, self._turns.pondering_threads)
            if job is not None:
                name, work, halt, after = job
                self._pondering = PonderJob(self, name, work, halt, after)
                # A stop() that came while this started found no job to signal (it counts
                # first, then looks for the job: one of the two sees the other).
                if self._stops != stops:
                    self._pondering.signal()

    @property
    def pondering(self) -> bool:
        """Whether a background search started by :meth:`ponder` is running."""
        job = self._pondering
        return job is not None and job.alive()

    def stop_pondering(self) -> None:
        """End the background search of :meth:`ponder`, if any, and wait for its threads
        (what it found stays for the next search)."""
        self._turns.end_pondering()

    def _end_pondering(self) -> None:
        job, self._pondering = self._pondering, None
        if job is not None:
            job.end()


def _weakly(method: Callable[[], None]) -> Callable[[], None]:
    """A call of a bound ``method`` that does not keep its object alive (nothing happens
    once the object is gone)."""
    ref = weakref.WeakMethod(method)

    def call() -> None:
        bound = ref()
        if bound is not None:
            bound()
    return call
