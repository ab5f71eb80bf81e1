"""PUCT search with your own network: :class:`PUCTSettings` and :class:`PUCTPlayer`.

AlphaZero's search: a child is chosen by Q + c_puct * P * sqrt(N) / (1 + n), P the
evaluator's prior, and a new leaf takes the evaluator's value instead of a playout.  The
tree lives in C (:mod:`cythello.search._puct`); a search step gathers up to
``batch_size`` leaves (virtual loss spreads them), calls the evaluator once on the batch
and backs its values up.  Finished games inside the tree are scored exactly, without the
evaluator.  With the shipped :class:`~cythello.nn.PatternEvaluator`, ``threads=N`` searches
the tree on N threads at once, in C (:meth:`PuctForest.run_shared`).  For many games
sharing one batch, see :func:`cythello.selfplay.generate` with ``evaluator=``.
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Optional, Set, Tuple

import numpy as np

from ..book.store import Book, load_book
from ..core._board import Board
from ..errors import InvalidBoardError, SettingsError
from ..nn._pattern import PatternEvaluator
from ..nn.contract import check_output
from ._endgame import Solver
from ._puct import PuctForest
from .book_play import book_result
from .clock import Clock
from .endgame_play import SolverPace, exact_result, solve_seconds, starts_with_solve
from .limits import Limit, PlayResult, call_limits, play_result, search_budget
from .players import MIN_PROGRESS_INTERVAL
from .results import DISC_SCALE, MoveStats, SearchResult
from .settings import (
    _BOOK,
    _FLAG,
    _SECONDS,
    _SEED,
    DEFAULT_MAX_NODES,
    MAX_ITERATIONS,
    MAX_NODES,
    MAX_THREADS,
    SettingsType,
    _choice,
    _int,
    _number,
    _setting,
    check_fields,
    renamed_settings,
)
from .states import StopReason
from .turns import PonderJob, Turns

if TYPE_CHECKING:      # Python 3.9's typing lacks it; annotations are not evaluated
    from typing_extensions import TypeGuard

MAX_BATCH = 1 << 16
# Simulations per call into C when the evaluator is the pattern evaluation (a millisecond
# or so: time limits and stop() are checked between calls).
NATIVE_CHUNK = 256
# Seconds per call of a search on several threads (threads start and end with each call;
# time limits and stop() are checked between calls).
SHARED_CHUNK = 0.02
MAX_ROOT_VISITS = 0xFFFFFFFF - (1 << 20)
DEFAULT_SIMULATIONS = 800          # a search's budget when nothing limits it


@renamed_settings
@dataclass(frozen=True)
class PUCTSettings(SettingsType):
    """Every setting of a PUCT search, checked once when made (immutable; derive with
    :meth:`replace`).  Without an iteration (simulation) or a time limit a search runs 800
    simulations.  ``iterations`` is the budget's name in every search (it was
    ``simulations`` here, which still works, with a DeprecationWarning).  The defaults are AlphaZero's where it published them (c_puct 1.25 at
    its simulation counts, noise fraction 0.25) and one leaf per evaluator call."""

    iterations: Optional[int] = _setting(
        None, _int(1, MAX_ITERATIONS), "simulations per search (with time_limit: whichever "
        "comes first; formerly simulations)", optional=True)
    time_limit: Optional[float] = _setting(None, _SECONDS, "seconds per search", optional=True)
    c_puct: float = _setting(1.25, _number(0, 100), "weight of the prior term "
                             "c_puct * P * sqrt(N) / (1 + n)")
    fpu: str = _setting("parent", _choice("parent", "draw", "loss"), "the value of an "
                        "unvisited child: its parent's mean (minus fpu_reduction), a draw "
                        "or a loss")
    fpu_reduction: float = _setting(0.0, _number(0, 2), "subtracted from the parent's mean "
                                    "for an unvisited child (fpu=parent)")
    batch_size: int = _setting(1, _int(1, MAX_BATCH), "leaves gathered per evaluator call, "
                               "per game")
    threads: int = _setting(1, _int(1, MAX_THREADS), "threads searching one tree at once "
                            "(the shipped pattern evaluator only; a network called from "
                            "Python spreads its search with batch_size)")
    virtual_loss: float = _setting(1.0, _number(0, 10), "losses a waiting leaf counts on "
                                   "its path, so the next leaves of a batch go elsewhere")
    dirichlet_alpha: float = _setting(0.0, _number(0, 100), "root noise Dir(alpha) over "
                                      "the legal moves (0: none; self-play: about 0.5-1)")
    dirichlet_fraction: float = _setting(0.25, _number(0, 1), "weight of the root noise "
                                         "in the root priors")
    temperature: float = _setting(1.0, _number(0, 100, low_open=True), "choose_move draws "
                                  "in proportion to visits ** (1 / temperature) early on")
    temperature_moves: int = _setting(0, _int(0, 60), "how many of a game's first moves "
                                      "are drawn so (then: the most visited)")
    reuse_tree: bool = _setting(True, _FLAG, "keep the subtree of the position reached "
                                "for the next search")
    endgame_empties: int = _setting(0, _int(0, 60), "solve exactly from this many empty "
                                    "squares, as MCTSPlayer does (0: never; the network "
                                    "plays to the end)")
    endgame_by_time: bool = _setting(False, _FLAG, "endgame_empties is the most: solve "
                                     "from as many empties as the search's time affords "
                                     "at the solver's measured speed")
    max_nodes: Optional[int] = _setting(
        None, _int(16, MAX_NODES), f"each tree's node cap, 24 bytes a node (default "
        f"{DEFAULT_MAX_NODES:,} per thread searching it)", optional=True)
    recycle: bool = _setting(True, _FLAG, "a full tree drops the children of its least "
                             "visited nodes and grows on (false: it stops growing and "
                             "searches on within the nodes it has)")
    seed: Optional[int] = _setting(None, _SEED, "seeds the noise and the move draws "
                                   "(None: fresh)", optional=True)
    progress_interval: float = _setting(0.25, _SECONDS, "seconds between a search's "
                                        "on_progress reports")
    book: Any = _setting(None, _BOOK, "the opening book a player plays from without "
                         "searching: 'default', a book file or a Book (None: no book)",
                         optional=True)
    book_variety: float = _setting(0.0, _number(0, 64), "discs: a book move is drawn among "
                                   "those within this of the best (0: the best)")

    KIND: ClassVar[str] = "PUCT"
    RENAMED: ClassVar[Dict[str, str]] = {"simulations": "iterations"}

    def __post_init__(self) -> None:
        check_fields(self)
        if self.threads > 1 and self.batch_size > 1:
            raise SettingsError("threads and batch_size are two ways to spread a search "
                                f"(threads={self.threads}, batch_size={self.batch_size}): "
                                "choose one")

    @property
    def nodes_per_tree(self) -> int:
        """Each tree's node cap: ``max_nodes``, else the default for its threads.  Per
        thread, as SearchSettings' pools: the threads fill a tree that many times faster,
        and a full tree's recycling is one thread's work while the others wait (at 16
        threads a 4-million-node tree fills in about a third of a second, from the
        simulations a second measured there: docs/results/benchmarks.md)."""
        return self.max_nodes if self.max_nodes is not None else DEFAULT_MAX_NODES * self.threads

    @property
    def limits(self) -> Tuple[Optional[int], Optional[float]]:
        """A search's (simulations, seconds) when its call gives none: the settings' own,
        or 800 simulations when they have neither (as SearchSettings.limits)."""
        if self.iterations is None and self.time_limit is None:
            return DEFAULT_SIMULATIONS, None
        return self.iterations, self.time_limit

    def forest(self, games: int = 1) -> PuctForest:
        """C trees for ``games`` games with these settings."""
        return PuctForest(games, games * self.batch_size, self.nodes_per_tree, self.c_puct,
                          self.fpu, self.fpu_reduction, self.virtual_loss)


Evaluate = Callable[[Any, Any], Tuple[Any, Any]]


def evaluate_batch(forest: PuctForest, evaluator: Evaluate, leaves: int, call: int) -> None:
    """Hand the ``leaves`` waiting in ``forest`` to ``evaluator`` and submit its answer;
    if it raises or answers wrongly the leaves are dropped (virtual losses taken back),
    so the trees stay usable, and the error goes on."""
    try:
        legal = forest.legal[:leaves]
        logits, values = check_output(evaluator(forest.planes[:leaves], legal), legal, call)
        forest.submit(logits, values)
    except BaseException:
        forest.cancel()
        raise


def runs_in_c(evaluator: Evaluate) -> TypeGuard[PatternEvaluator]:
    """Whether the search calls ``evaluator`` in C: the shipped :class:`PatternEvaluator`
    itself (a subclass or a wrapper may answer differently, so it goes through Python)."""
    return type(evaluator) is PatternEvaluator


def search_step(forest: PuctForest, evaluator: Evaluate, want: Any, call: int,
                steps: int = 1) -> int:
    """``steps`` search steps of ``forest`` (one when ``evaluator`` runs in Python: a step
    is one call of it); the leaves evaluated.  The shipped :class:`PatternEvaluator` is
    called in C, without Python, with the same answers (and so the same trees)."""
    if runs_in_c(evaluator):
        leaves, _ = forest.run_native(evaluator, want, steps)
        return int(leaves)
    leaves, _ = forest.gather(want)
    if leaves:
        evaluate_batch(forest, evaluator, leaves, call)
    return int(leaves)


def root_noise(forest: PuctForest, tree: int, settings: PUCTSettings,
               rng: np.random.Generator) -> None:
    """Mix Dirichlet noise into an expanded root's priors (when the settings ask for it)."""
    if settings.dirichlet_alpha <= 0 or settings.dirichlet_fraction <= 0:
        return
    k = len(forest.root_children(tree)[0])
    if k > 1:
        forest.mix_root_noise(tree, rng.dirichlet(np.full(k, settings.dirichlet_alpha)),
                              settings.dirichlet_fraction)


def draw_move(moves: np.ndarray, visits: np.ndarray, temperature: float,
              rng: np.random.Generator) -> int:
    """A move drawn in proportion to visits ** (1 / temperature)."""
    weights = visits.astype(np.float64) / max(1, int(visits.max()))
    weights = weights ** (1.0 / temperature)
    if weights.sum() <= 0:
        return int(moves[int(np.argmax(visits))])
    return int(rng.choice(moves, p=weights / weights.sum()))


def root_mean(visits: np.ndarray, values: np.ndarray) -> float:
    """The root's mean result in [-1, 1] for its side to move: its children's means
    weighted by their visits (0 before any)."""
    total = int(visits.sum())
    return float((visits * values).sum() / total) if total else 0.0


def best_root_move(moves: np.ndarray, visits: np.ndarray, values: np.ndarray) -> int:
    """The most visited move (the better mean on a tie)."""
    order = np.lexsort((-values, -visits))
    return int(moves[order[0]])


class PUCTPlayer:
    """A player whose search is PUCT guided by ``evaluator`` (see :mod:`cythello.nn`
    for the contract); ``settings`` (:class:`PUCTSettings`) or the settings by name.

        >>> player = PUCTPlayer(PatternEvaluator(), time_limit=1.0, batch_size=8)
        >>> player.choose_move(board)

    The evaluator runs on the calling thread (on a background thread while the player
    ponders); the tree work between its calls runs in C without the GIL.  The shipped
    :class:`~cythello.nn.PatternEvaluator` is called in C instead, on ``threads`` threads
    sharing the tree.  An evaluator
    that raises leaves the player usable (its exception goes on unchanged); a wrong answer
    raises :class:`~cythello.errors.EvaluatorError`.  The player serves the NBoard and GTP
    engines as :class:`~cythello.MCTSPlayer` does (per-search limits, a game clock,
    ``stop`` from another thread, pondering) and plays from an opening book when its
    settings name one (``book="default"``)."""

    def __init__(self, evaluator: Evaluate, settings: Optional[PUCTSettings] = None,
                 **options: Any) -> None:
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        if settings is not None and not isinstance(settings, PUCTSettings):
            raise TypeError(f"settings must be PUCTSettings, not {type(settings).__name__}")
        self.evaluator = evaluator
        self.settings = settings.replace(**options) if settings is not None \
            else PUCTSettings(**options)
        self._native = runs_in_c(evaluator)
        if self.settings.threads > 1 and not self._native:
            raise SettingsError(f"threads={self.settings.threads} needs the shipped "
                                "PatternEvaluator, which the threads call in C; a network "
                                "called from Python spreads its search with batch_size")
        self.book: Optional[Book] = load_book(self.settings.book)
        self._book_rng = random.Random(self.settings.seed)
        self._forest = self.settings.forest(1)
        self._rng = np.random.default_rng(self.settings.seed)
        self._root: Optional[Board] = None      # the position the tree's root holds
        # One user of the tree at a time (search, reset, ponder): the contract is turns'.
        self._turns = Turns(self._end_pondering)
        self._stop = False
        self._solver = Solver()
        self._pace = SolverPace()               # the solver's speed, for endgame_by_time
        self.evaluator_calls = 0                # calls into Python, over the player's life
        self.recycled = 0                       # recyclings of the tree, over its life
        self._stops = 0                         # stop() calls, over the player's life
        self._pondering: Optional[PonderJob] = None    # see turns.PonderJob

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.settings.as_dict().items()
                   if v != getattr(PUCTSettings(), k)}
        text = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"PUCTPlayer({self.evaluator!r}{', ' if text else ''}{text})"

    def __reduce__(self) -> Any:
        return (_player, (self.evaluator, self.settings))

    def reset(self) -> None:
        """Forget the tree (a new game); pondering ends.  While the player searches in
        another thread it waits for the search to return (:mod:`~cythello.search.turns`)."""
        with self._turns.turn("reset()"):
            self._root = None
            self._book_rng = random.Random(self.settings.seed)

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Search ``board`` within ``limit`` (the settings' limits without one): the move,
        the evaluation in discs and the search's figures, as every player answers."""
        return play_result(self.search(board, limit=limit))

    def stop(self) -> None:
        """End the running search at its next step, and pondering (from another thread)."""
        self._stops += 1
        self._stop = True
        self._solver.stop()
        job = self._pondering               # read once: another thread may end it
        if job is not None:
            job.signal()

    @property
    def stops(self) -> int:
        """How many times :meth:`stop` was called (for ``search(stops_seen=...)``)."""
        return self._stops

    def ponder(self, board: Board) -> None:
        """Think on the opponent's time: search ``board`` (the position after this
        player's move, the opponent to move) on a background thread, and return at once.
        It goes on, within the node cap (recycled when full), until the next
        :meth:`search`, :meth:`choose_move`, :meth:`stop`, :meth:`reset` or
        :meth:`stop_pondering`; the next search then starts from the subtree of the
        position the opponent's move reached.  Needs ``reuse_tree`` (without it, and in a
        finished game, it does nothing)."""
        if not isinstance(board, Board):
            raise TypeError(f"ponder needs a cythello.Board, not {type(board).__name__}")
        with self._turns.turn("ponder()"):
            if not self.settings.reuse_tree or board.is_game_over():
                return
            self._place_root(board)
            end = threading.Event()
            self._pondering = PonderJob(
                self, "cythello-puct-ponder",
                [(_ponder_loop, (self._forest, self.evaluator, self.settings, self._native,
                                 end, self._turns.pondering_threads))], halt=end.set)

    @property
    def pondering(self) -> bool:
        """Whether a background search started by :meth:`ponder` is running."""
        job = self._pondering
        return job is not None and job.alive()

    def stop_pondering(self) -> None:
        """End the background search of :meth:`ponder`, if any, and wait for its thread
        (the tree stays for the next search)."""
        self._turns.end_pondering()

    def _end_pondering(self) -> None:
        job, self._pondering = self._pondering, None
        if job is not None:
            job.end()

    def choose_move(self, board: Board) -> int:
        """The move to play: drawn by visits for the game's first ``temperature_moves``
        moves, else the most visited."""
        result = self.search(board)
        s = self.settings
        if board.ply < s.temperature_moves and result.moves:
            moves = np.array([m.move for m in result.moves])
            visits = np.array([m.visits for m in result.moves])
            if visits.sum() > 0:
                return draw_move(moves, visits, s.temperature, self._rng)
        return result.best_move

    def search(self, board: Board, iterations: Optional[int] = None,
               time_limit: Optional[float] = None, clock: Optional[Clock] = None,
               solve: bool = True, stops_seen: Optional[int] = None,
               on_progress: Optional[Callable[[SearchResult], None]] = None,
               book: bool = True, limit: Optional[Limit] = None) -> SearchResult:
        """Search ``board`` and report every root move's visits and win rate.
        ``iterations`` (simulations) and ``time_limit`` replace the settings' limits for
        this search only; a game ``clock`` sets the time limit from the time left (never
        more), the settings' simulation cap holding as MCTSPlayer's iteration cap does;
        ``solve=False`` skips the exact solver; with ``stops_seen`` (:attr:`stops` read
        earlier) a :meth:`stop` that came since ends this search at once.
        ``on_progress(snapshot)`` is called about every ``progress_interval`` seconds
        while the tree grows.  In a position of the player's opening book the answer is a
        book move, at once (``book=False`` searches anyway).  ``limit`` (a :class:`~cythello.Limit`)
        gives the simulations, time and clock in one object instead."""
        iterations, time_limit, clock, _ = call_limits(limit, iterations, time_limit, clock,
                                                       depth_allowed=False)
        if not isinstance(board, Board):
            raise TypeError(f"board must be a cythello.Board, not {type(board).__name__}")
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        if board.is_game_over():
            raise InvalidBoardError("the game is over: there is no move to search")
        if clock is not None and not isinstance(clock, Clock):
            raise TypeError(f"clock must be a Clock, not {type(clock).__name__}")
        # The call's limits replace the settings'; a clock gives the time (search_budget:
        # every player's rule, and its checks).
        budget, seconds = search_budget(self.settings.limits, self.settings.iterations,
                                        iterations, time_limit, clock, board.empties())
        with self._turns.turn("search()"):
            self._stop = stops_seen is not None and stops_seen != self._stops
            self._solver.clear_stop()
            if book and self.book is not None:
                played = book_result(self.book, board, self.settings.book_variety,
                                     self._book_rng, DISC_SCALE, self.settings.threads)
                if played is not None:
                    return played
            try:
                return self._search(board, budget, seconds, solve, on_progress)
            finally:
                if self._forest.pending:      # interrupted between gathering and evaluating
                    self._forest.cancel()

    def _search(self, board: Board, budget: Optional[int], seconds: Optional[float],
                solve: bool, on_progress: Optional[Callable[[SearchResult], None]] = None
                ) -> SearchResult:
        s, forest = self.settings, self._forest
        start = time.monotonic()
        if solve and not self._stop and starts_with_solve(
                board, s.endgame_empties, s.endgame_by_time, seconds, self._pace):
            # The solver gets half the time (the tree search keeps the rest if it fails).
            until = start + solve_seconds(seconds)
            exact = exact_result(board, self._solver, start, until, pace=self._pace)
            if exact is not None:
                self._root = None             # the tree no longer matches the game
                return exact
        reused = self._place_root(board)
        if forest.root_expanded(0):
            root_noise(forest, 0, s, self._rng)
        noised = forest.root_expanded(0)
        deadline = start + seconds if seconds is not None else None
        calls = 0
        reason = StopReason.ITERATIONS
        report = start + max(s.progress_interval, MIN_PROGRESS_INTERVAL)
        while True:
            done = forest.simulations(0)
            if budget is not None and done >= budget:
                break
            # The root is expanded first whatever else happens: a result has moves.
            if forest.root_expanded(0):
                if deadline is not None and done and time.monotonic() >= deadline:
                    reason = StopReason.TIME
                    break
                if self._stop:
                    reason = StopReason.STOPPED
                    break
                if forest.root_visits(0) > MAX_ROOT_VISITS - s.batch_size:
                    break                 # visits are 32-bit counts (hours of search)
            leaves, recycled = _grow(forest, self.evaluator, s, self._native,
                                     None if budget is None else budget - done, calls + 1)
            if leaves and not self._native:
                calls += 1
            self.recycled += recycled
            if not noised and forest.root_expanded(0):
                root_noise(forest, 0, s, self._rng)
                noised = True
            if on_progress is not None and forest.root_expanded(0) \
                    and time.monotonic() >= report:
                on_progress(self._result(forest.simulations(0), reused, start,
                                         StopReason.RUNNING))
                report = time.monotonic() + max(s.progress_interval, MIN_PROGRESS_INTERVAL)
        self.evaluator_calls += calls
        return self._result(forest.simulations(0), reused, start, reason)

    def _place_root(self, board: Board) -> int:
        """Put ``board`` at the tree's root: the old tree's subtree when ``board``
        follows from its root by a few moves, else a fresh tree; the visits kept."""
        forest, old = self._forest, self._root
        self._root = board.copy(stack=True)
        if self.settings.reuse_tree and old is not None:
            line = _moves_between(old, board)
            if line is not None:
                kept = forest.root_visits(0)
                for move in line:
                    kept = forest.advance(0, move)
                    if not kept:
                        break
                if kept:
                    return int(kept)
        own, opp = board.position()
        forest.set_root(0, own, opp)
        return 0

    def _result(self, simulations: int, reused: int, start: float,
                reason: StopReason) -> SearchResult:
        forest = self._forest
        moves, visits, values, _ = forest.root_children(0)
        best = best_root_move(moves, visits, values)
        stats = [MoveStats(int(m), int(n), (float(q) + 1) / 2)
                 for m, n, q in sorted(zip(moves, visits, values), key=lambda r: -r[1])]
        return SearchResult(
            best_move=best, iterations=simulations, root_visits=int(visits.sum()),
            nodes=forest.nodes(0), elapsed=time.monotonic() - start,
            win_rate=(root_mean(visits, values) + 1) / 2,
            principal_variation=forest.principal_variation(0), moves=stats,
            stop_reason=reason, reused_visits=reused)


def _grow(forest: PuctForest, evaluator: Evaluate, settings: PUCTSettings, native: bool,
          budget: Optional[int], call: int) -> Tuple[int, bool]:
    """One search step of tree 0 (a chunk of them in C when ``native``, on
    ``settings.threads`` threads once the root is expanded, within the ``budget`` of
    simulations left), then a recycling if the tree filled up (and the settings ask for
    it): the leaves evaluated and whether it was recycled."""
    want = settings.batch_size if budget is None else min(settings.batch_size, budget)
    steps = 1
    if native and settings.threads > 1 and forest.root_expanded(0):
        assert runs_in_c(evaluator)
        leaves = int(forest.run_shared(evaluator, 0, settings.threads,
                                       MAX_ITERATIONS if budget is None else budget,
                                       SHARED_CHUNK, settings.recycle)[0])
    else:
        if native and forest.root_expanded(0):
            steps = max(1, NATIVE_CHUNK // want)
            if budget is not None:
                steps = max(1, min(steps, budget // want))
        leaves = search_step(forest, evaluator, [want], call, steps)
    recycled = settings.recycle and forest.is_full(0)
    if recycled:
        forest.recycle(0)
    return leaves, recycled


def _ponder_loop(forest: PuctForest, evaluator: Evaluate, settings: PUCTSettings,
                 native: bool, end: threading.Event, inside: Set[int]) -> None:
    """A pondering thread: grow tree 0 until ``end`` is set (every turn of the player
    sets it and waits for the thread first).  It counts itself ``inside`` the player's
    work while it runs (an evaluator that calls the player from here is refused, as from
    a search).  It holds no reference to the player, so a player dropped while it ponders
    is collected (and ends it)."""
    me = threading.get_ident()
    inside.add(me)
    try:
        call = 0
        while not end.is_set() and forest.root_visits(0) <= MAX_ROOT_VISITS - NATIVE_CHUNK:
            call += 1
            _grow(forest, evaluator, settings, native, None, call)
    except Exception:       # noqa: BLE001 - the evaluator failed: pondering just ends;
        pass                # the next search calls it again, and raises what it raises
    finally:
        if forest.pending:
            forest.cancel()
        inside.discard(me)


def _player(evaluator: Evaluate, settings: PUCTSettings) -> PUCTPlayer:
    return PUCTPlayer(evaluator, settings)


def _moves_between(old: Board, new: Board) -> Optional[List[int]]:
    """The moves that lead from ``old`` to ``new``: from their move stacks (at most 4),
    else found by position within 3 plies (boards without their move stacks, as a GUI or
    a match may hand over); None when ``new`` is not reached."""
    stack_old, stack_new = old.move_stack, new.move_stack
    if old.root() == new.root() and len(stack_old) <= len(stack_new) <= len(stack_old) + 4 \
            and stack_new[:len(stack_old)] == stack_old:
        return list(stack_new[len(stack_old):])
    target = (new.position(), new.turn)
    frontier: List[Tuple[Board, List[int]]] = [(old.copy(stack=False), [])]
    for _ in range(3):
        reached = []
        for board, line in frontier:
            for move in board.legal_moves:
                child = board.copy(stack=False)
                child.push(move)
                if (child.position(), child.turn) == target:
                    return line + [move]
                reached.append((child, line + [move]))
        frontier = reached
    return None


def check_batch_games(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_BATCH:
        raise SettingsError(f"batch_games must be an int from 1 to {MAX_BATCH}, not {value!r}")
    return value
