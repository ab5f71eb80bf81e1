"""Players: objects with ``choose_move(board)``.

:class:`MCTSPlayer` holds search settings and calls the C search (:mod:`cythello.search._mcts`);
:class:`RandomPlayer` is the baseline.  Every player -- and the external-engine players of
:mod:`cythello.protocols.engine` -- follows the same :class:`Player` protocol.
"""
from __future__ import annotations

import functools
import random
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Protocol

from ..book.store import Book
from ..core._board import Board
from ..errors import InvalidBoardError
from ..eval._patterns import PatternWeights
from ..squares import PASS
from . import _interruptible
from ._endgame import Solver
from ._mcts import NODE_BYTES, SearchTree
from ._rollout import random_seed
from .alphabeta import AlphaBetaPlayer  # its own module; importable from here as before
from .book_play import book_result
from .clock import Clock
from .endgame_play import SolverPace, exact_result, solve_seconds, starts_with_solve
from .engine import EnginePlayer  # noqa: F401  (its home: search/engine.py)
from .limits import Limit, PlayResult, call_limits, play_result, search_budget
from .presets import CLASSIC, PRESETS
from .results import (
    MoveStats,
    RootMove,
    SearchResult,
    best_move,
    overall_reason,
    pool_symmetric_moves,
)
from .settings import SearchSettings
from .states import StopReason
from .turns import PonderJob, Turns

__all__ = [
    "Player", "RandomPlayer", "MCTSPlayer", "AlphaBetaPlayer", "SearchResult", "MoveStats",
    "PRESETS", "CLASSIC", "NODE_BYTES",
]

MIN_PROGRESS_INTERVAL = 0.001          # seconds between on_progress reports, at least
SHORT_RUN = 20_000                     # iterations: a few ms, run without a helper thread
# A search whose runner-up has this share of the best move's visits is unsettled: time
# extension goes on searching it (with the "unstable" rule of Huang, Coulom and Lin 2010:
# the most visited move is not the best valued).
UNSETTLED_RATIO = 0.5
# The reasons a tree's run ends without more time helping it.
FINISHED = (StopReason.ITERATIONS, StopReason.NODES, StopReason.STOPPED, StopReason.SOLVED,
            StopReason.DECIDED)

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


def _run_seconds(deadline: float, quota: Optional[int], done: int) -> Optional[float]:
    """At most how long a tree's run may take: about nothing for a few iterations
    (self-play's hundreds), else until its deadline (0: none; None: unknown)."""
    if quota is not None and quota - done <= SHORT_RUN:
        return 0.0
    return deadline - time.monotonic() if deadline else None


class MCTSPlayer:
    """Monte Carlo Tree Search player.

    Its settings are one :class:`~cythello.search.settings.SearchSettings`
    (``player.settings``, checked once when made): pass one, or its fields by name
    (``MCTSPlayer(time_limit=1.0, threads=2)``), or start from a difficulty level
    (:meth:`preset`); ``settings_table()`` in that module lists them all.

    ``iterations`` and ``time_limit`` (seconds) bound each search; whichever comes first
    ends it (with neither, 1,000 iterations).  ``threads`` search in parallel: with
    ``parallel="tree"`` (the default) they share one tree, each taking a virtual loss on
    its path; with ``parallel="root"`` each grows a tree of its own and their root
    statistics are summed (fewer Elo per thread, but reproducible with a seed).
    ``max_nodes`` caps each tree's node pool (by default 4 million nodes, 96 MB, per thread
    searching it), or ``max_memory_mb`` gives the budget of all trees in MB; when a pool is
    full the search recycles it (``recycle``): the children of its least visited nodes are
    dropped, those nodes keep their statistics as leaves, and the search goes on until its
    limit.  With ``reuse_tree`` the subtree of the position reached after both sides moved
    is kept for the next search.  ``on_progress(result)`` (not a search setting) is called
    every ``progress_interval`` seconds with a snapshot :class:`SearchResult`.  With
    ``endgame_empties`` > 0, positions with that many empty squares or fewer are solved
    exactly first, within half the time limit (2 s for an iteration-limited player); if the
    solve does not finish, the tree search takes over.  With ``endgame_by_time`` that many
    is the most: a search solves from as many empties as its time affords at the speed its
    solver has shown (:mod:`~cythello.search.endgame_play`).

    ``eval_weights`` gives the search the learned pattern evaluation: ``"default"`` (the
    shipped weights), a weights file, or :class:`~cythello.eval.PatternWeights` (None: no
    evaluation, square knowledge for the prior).  Every child is then valued by the
    evaluation when it is created, and the values are backed up by minimax through the
    tree; the prior becomes the win probability of that value (a logistic with
    ``eval_scale`` discs per unit), ``minimax_weight`` blends it into each child's mean
    reward (implicit minimax backups), and ``leaf_eval`` blends it into the value of each
    new leaf in place of the playout (1: no playouts at all).

    ``early_stop`` ends a search once its most visited move can no longer be overtaken
    within the budget left (the time saved stays on a game clock).  ``widening`` > 0 turns on
    progressive widening: a node considers only its ``1 + widening * n**0.4`` best-ordered
    children after ``n`` visits.  With ``transpositions`` a position reached by several
    move orders is searched once: its nodes share one set of children (the tree becomes a
    DAG), found through a table of positions (3 more bytes per node).  ``rave`` > 0 turns
    on RAVE: each child also keeps all-moves-as-first statistics (the simulations below its
    parent in which its player took its square at any later point, playouts included), and
    its mean is blended with theirs by ``sqrt(rave / (3 n + rave))`` after ``n`` visits (16
    more bytes per node).

    With a game clock (``search(board, clock=...)``), ``time_extension`` > 0 lets a search
    whose budget ran out in an unsettled position (the two most visited moves within
    ``UNSETTLED_RATIO`` of each other, or the most visited not the best valued) go on, in
    steps of half the budget, for up to ``time_extension`` budgets more, never past the
    clock's limit for one move.
    """

    def __init__(self, settings: Optional[SearchSettings] = None, *,
                 on_progress: Optional[Callable[[SearchResult], None]] = None,
                 **options: Any) -> None:
        if settings is not None and not isinstance(settings, SearchSettings):
            raise TypeError(f"settings must be SearchSettings, not {type(settings).__name__}")
        if "evaluator" in options:
            raise TypeError("MCTSPlayer searches with playouts and the pattern evaluation; "
                            "a network guides cythello.PUCTPlayer(evaluator, ...)")
        if settings is None:
            settings = SearchSettings(**options)
        elif options:
            settings = settings.replace(**options)
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        self.settings: SearchSettings = settings
        self.on_progress = on_progress
        # Loaded once here, so that a bad weights file is an error now, not at the search.
        self.eval_weights: Optional[PatternWeights] = settings.weights()
        self.book: Optional[Book] = settings.opening_book()
        self._book_rng = random.Random(settings.seed)
        self._solver = Solver(threads=settings.threads)
        self._pace = SolverPace()              # the solver's speed, for endgame_by_time
        self._trees: List[SearchTree] = []
        self._stop = threading.Event()
        self._stops = 0                        # stop() calls so far (see search's stops_seen)
        self._pondering: Optional[PonderJob] = None
        # One user of the trees at a time (search, reset, ponder): the contract is turns'.
        self._turns = Turns(self._end_pondering)

    @classmethod
    def preset(cls, name: str, *, on_progress: Optional[Callable[[SearchResult], None]] = None,
               **overrides: Any) -> MCTSPlayer:
        """A player at a difficulty level (``easy``, ``medium``, ``hard``, ``expert``), or
        ``classic`` (plain UCT with playouts)."""
        return cls(SearchSettings.preset(name, **overrides), on_progress=on_progress)

    def __repr__(self) -> str:
        s = self.settings
        iterations, time_limit = s.limits
        limits = []
        if iterations is not None:
            limits.append(f"iterations={iterations}")
        if time_limit is not None:
            limits.append(f"time_limit={time_limit}")
        return (f"MCTSPlayer({', '.join(limits)}, exploration={s.exploration:g}, "
                f"rollout={s.rollout!r}, threads={s.threads}, parallel={s.parallel!r})")

    # -- searching -------------------------------------------------------------------------

    def choose_move(self, board: Board) -> int:
        """The move to play: the most-visited root move (a proven win first)."""
        moves = list(board.legal_moves)
        if len(moves) == 1:
            self.stop_pondering()
            return moves[0]              # forced: no thinking needed
        return self.search(board).best_move

    def play(self, board: Board, limit: Optional[Limit] = None) -> PlayResult:
        """Search ``board`` within ``limit`` (the settings' limits without one) and answer
        as every player and engine client does: the move, the evaluation in discs, and
        the search's figures in ``info``."""
        return play_result(self.search(board, limit=limit))

    def stop(self) -> None:
        """End the running search (or pondering) soon, from another thread; a search
        returns what it has."""
        self._stops += 1
        self._stop.set()
        self._solver.stop()
        for tree in self._trees:
            tree.stop()

    @property
    def stops(self) -> int:
        """How many times :meth:`stop` was called: read it before deciding to search and
        pass it as ``search(stops_seen=...)``, so that a stop that comes in between still
        stops that search (a stop is otherwise only for a search already running)."""
        return self._stops

    def reset(self) -> None:
        """Forget the tree kept for reuse (pondering ends first) and start the book's draws
        again from the seed.  While the player searches in another thread it waits for the
        search to return (:mod:`~cythello.search.turns`)."""
        with self._turns.turn("reset()"):
            self._trees = []
            # A match resets its players before each game: with a seed, the book's draws
            # of a game then do not depend on the games before it.
            self._book_rng = random.Random(self.settings.seed)

    # -- pondering -------------------------------------------------------------------------

    def ponder(self, board: Board) -> None:
        """Think on the opponent's time: search ``board`` (the position after this
        player's move, the opponent to move) in the background, and return at once.  It
        goes on, within the node pool (recycled when full), until the next
        :meth:`search`, :meth:`choose_move`, :meth:`stop` or :meth:`reset`; the next
        search then starts from the subtree of the position the opponent's move reached,
        with everything pondered below it.  Needs ``reuse_tree`` (without it, and in a
        finished game, it does nothing); a position the exact solver will take is not
        pondered either."""
        if not isinstance(board, Board):
            raise TypeError(f"ponder needs a cythello.Board, not {type(board).__name__}")
        s = self.settings
        with self._turns.turn("ponder()"):
            if (not s.reuse_tree or board.is_game_over()
                    or self._starts_with_solve(board, s.time_limit)):
                return
            self._prepare_trees(board)
            for tree in self._trees:
                tree.clear_stop()
            trees = list(self._trees)
            self._pondering = PonderJob(
                self, "cythello-ponder", [(tree.run, (None, 0.0)) for tree in trees],
                halt=functools.partial(_stop_trees, trees))

    @property
    def pondering(self) -> bool:
        """Whether a background search started by :meth:`ponder` is running."""
        return self._pondering is not None and self._pondering.alive()

    def stop_pondering(self) -> None:
        """End the background search of :meth:`ponder`, if any, and wait for its threads
        (the tree stays for the next search)."""
        self._turns.end_pondering()

    def _end_pondering(self) -> None:
        job, self._pondering = self._pondering, None
        if job is not None:
            job.end()

    def __reduce__(self) -> Any:
        # Settings only: trees, the solver and locks belong to one process.
        return (_player_from_settings, (self.settings, self.on_progress))

    def _tree_seed(self, i: int) -> int:
        seed = self.settings.seed
        if seed is None:
            return random_seed()
        return (seed * 0x9E3779B97F4A7C15 + i * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF

    def _prepare_trees(self, board: Board) -> int:
        """Trees rooted at ``board``; returns the root visits kept from earlier searches."""
        count = self.settings.tree_count
        # Every tree advances (a list, not a short-circuit): each must drop its old root.
        if self.settings.reuse_tree and len(self._trees) == count and \
                all([tree.advance(board) for tree in self._trees]):
            return sum(tree.root_visits for tree in self._trees)
        # The weights as loaded, so that no tree loads them again.
        settings = self.settings.replace(eval_weights=self.eval_weights)
        self._trees = [SearchTree(board, settings.replace(seed=self._tree_seed(i)))
                       for i in range(count)]
        return 0

    def search(
        self,
        board: Board,
        iterations: Optional[int] = None,
        time_limit: Optional[float] = None,
        on_progress: Optional[Callable[[SearchResult], None]] = None,
        clock: Optional[Clock] = None,
        solve: bool = True,
        book: bool = True,
        stops_seen: Optional[int] = None,
        limit: Optional[Limit] = None,
    ) -> SearchResult:
        """Search ``board`` and return a :class:`SearchResult`.  ``iterations`` and
        ``time_limit`` override the player's limits for this search only; a game ``clock``
        (:class:`~cythello.search.clock.Clock`) sets the time limit from the time left
        instead (never more, so the clock never runs out), and the settings' iteration cap
        (a preset's level) still holds unless ``iterations`` or ``time_limit`` is given.
        ``solve=False`` skips the exact solver of ``endgame_empties`` (for an answer wanted
        at once: a solve is stopped only by its time cap).  In a position of the player's
        opening ``book`` the answer is a book move, at once and without a search
        (``stop_reason`` "book"; the moves are the book's, with their values);
        ``book=False`` searches anyway.  With ``stops_seen`` (:attr:`stops` read earlier), a
        :meth:`stop` that came since ends this search at once.  Calls from several threads
        run one after another, and a search ends pondering first
        (:mod:`~cythello.search.turns`).  ``limit`` (a :class:`~cythello.Limit`) gives the
        iterations, time and clock in one object instead."""
        iterations, time_limit, clock, _ = call_limits(limit, iterations, time_limit, clock,
                                                       depth_allowed=False)
        if not isinstance(board, Board):
            raise TypeError(f"search needs a cythello.Board, not {type(board).__name__}")
        iterations, time_limit = search_budget(
            self.settings.limits, self.settings.iterations, iterations, time_limit, clock,
            board.empties())
        extra = 0.0
        if clock is not None:
            assert time_limit is not None
            extra = clock.extension(time_limit, self.settings.time_extension)
        with self._turns.turn("search()"):
            if book and self.book is not None:
                played = self._book_move(board)
                if played is not None:
                    return played
            return self._search(board, iterations, time_limit, on_progress, extra, solve,
                                stops_seen)

    def _search(
        self,
        board: Board,
        iterations: Optional[int],
        time_limit: Optional[float],
        on_progress: Optional[Callable[[SearchResult], None]],
        extra: float = 0.0,
        solve: bool = True,
        stops_seen: Optional[int] = None,
    ) -> SearchResult:
        """The search; ``extra`` seconds more may go to an unsettled position (see
        ``time_extension``)."""
        if not isinstance(board, Board):
            raise TypeError(f"search needs a cythello.Board, not {type(board).__name__}")
        if board.is_game_over():
            raise InvalidBoardError("the game is over: there is no move to search")
        on_progress = on_progress or self.on_progress

        self._stop.clear()
        self._solver.clear_stop()
        if stops_seen is not None and self._stops != stops_seen:
            # A stop came between the caller's decision and the clearing above: keep it,
            # and start no solve (which checks its flag only every so many nodes).
            self._stop.set()
            self._solver.stop()
            solve = False
        start = time.monotonic()
        deadline = start + time_limit if time_limit is not None else 0.0
        if solve and self._starts_with_solve(board, time_limit):
            # The solver gets half the time (the tree search keeps the rest if it fails).
            solve_until = start + solve_seconds(time_limit)
            exact = self._solve_exactly(board, start, solve_until)
            if exact is not None:
                return exact
        reused = self._prepare_trees(board)
        for tree in self._trees:
            tree.clear_stop()
            if self._stop.is_set():          # stopped during the solve: no tree search
                tree.stop()
        n = len(self._trees)
        quota = [None] * n if iterations is None else [
            iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
        done = [0] * n
        reasons: List[StopReason] = [StopReason.RUNNING] * n

        def work(i: int, chunk_end: float) -> None:
            q = quota[i]
            left = None if q is None else q - done[i]
            if left is not None and left <= 0:
                reasons[i] = StopReason.ITERATIONS
                return
            ran, reasons[i] = self._trees[i].run(left, chunk_end)
            done[i] += ran

        while True:
            chunk_end = deadline
            if on_progress is not None:
                # At most a thousand reports a second (each chunk runs at least one
                # iteration in C, so a tiny interval still makes progress).
                tick = time.monotonic() + max(self.settings.progress_interval,
                                           MIN_PROGRESS_INTERVAL)
                chunk_end = tick if deadline == 0.0 else min(deadline, tick)
            if n == 1:
                # A Ctrl-C on the main thread stops the search (_interruptible explains).
                _interruptible.call(functools.partial(work, 0, chunk_end), self.stop,
                                    _run_seconds(chunk_end, quota[0], done[0]))
            else:
                _interruptible.run_all([functools.partial(work, i, chunk_end)
                                        for i in range(n)], self.stop)
            finished = all(r in FINISHED for r in reasons)
            out_of_time = deadline != 0.0 and time.monotonic() >= deadline
            if out_of_time and not finished and extra > 0 and time_limit is not None \
                    and not self._stop.is_set() and self._unsettled():
                step = min(extra, time_limit / 2)
                extra -= step
                deadline = time.monotonic() + step
                reasons = [StopReason.RUNNING] * n
                continue
            if finished or out_of_time or self._stop.is_set():
                break
            if on_progress is not None:
                on_progress(self._result(board, sum(done), reused, start, StopReason.RUNNING))
        reason = StopReason.TIME if out_of_time and not finished else overall_reason(reasons)
        return self._result(board, sum(done), reused, start, reason)

    def _book_move(self, board: Board) -> Optional[SearchResult]:
        """The opening book's answer for ``board``, or None outside the book."""
        if not isinstance(board, Board):
            raise TypeError(f"search needs a cythello.Board, not {type(board).__name__}")
        s = self.settings
        return book_result(self.book, board, s.book_variety, self._book_rng, s.eval_scale,
                           s.threads)

    def _unsettled(self) -> bool:
        """Whether the search has not made up its mind: the two most visited root moves
        are close, or the most visited is not the best valued (with the evaluation)."""
        merged = self._merged_root()
        if len(merged) < 2 or any(row.proof for row in merged.values()):
            return False                         # a proof settles it either way
        ranked = sorted(merged, key=lambda m: merged[m].visits, reverse=True)
        if merged[ranked[1]].visits >= UNSETTLED_RATIO * merged[ranked[0]].visits:
            return True
        values = {m: row.value for m, row in merged.items() if row.value is not None}
        return bool(values) and max(values, key=values.__getitem__) != ranked[0]

    def _merged_root(self) -> Dict[int, RootMove]:
        """The root moves' statistics summed over the trees."""
        merged: Dict[int, RootMove] = {}
        for tree in self._trees:
            for child in tree.child_stats():
                row = merged.setdefault(child.move, RootMove())
                row.visits += child.visits
                row.reward += child.reward
                row.proof = row.proof or child.proof
                if child.value is not None:
                    row.values.append(child.value)
        return merged

    def _starts_with_solve(self, board: Board, time_limit: Optional[float]) -> bool:
        """Whether a search of ``time_limit`` seconds (None: limited by iterations) of
        ``board`` tries the exact solver first (see ``endgame_by_time``)."""
        s = self.settings
        return starts_with_solve(board, s.endgame_empties, s.endgame_by_time, time_limit,
                                 self._pace)

    def _solve_exactly(self, board: Board, start: float,
                       deadline: float) -> Optional[SearchResult]:
        exact = exact_result(board, self._solver, start, deadline, self.settings.threads,
                             self._pace)
        if exact is not None:
            self._trees = []                  # the tree no longer matches the game
        return exact

    def _result(self, board: Board, iterations: int, reused: int, start: float,
                reason: StopReason) -> SearchResult:
        merged = self._merged_root()
        pool_symmetric_moves(board, merged)
        moves = [MoveStats(m, row.visits, row.win_rate, row.proof, None, row.value)
                 for m, row in merged.items()]
        moves.sort(key=lambda s: (s.visits, s.win_rate), reverse=True)
        if not any(s.visits for s in moves) and not any(s.proof for s in moves):
            # Stopped before the first iteration (a stop during the endgame solve, say):
            # still answer with a legal move, the evaluation's choice when there is one.
            moves = [_untried_move(board, self.eval_weights)]
        proofs = [t.root_proof for t in self._trees if t.root_proof]
        root_visits = sum(t.root_visits for t in self._trees)
        total_reward = sum(row.reward for row in merged.values())
        win_rate = total_reward / root_visits if root_visits else 0.5
        pv = self._trees[0].principal_variation()
        best = best_move(moves) if moves else list(board.legal_moves)[0]
        if pv and pv[0] != best:
            pv = [best]
        return SearchResult(
            best_move=best, iterations=iterations, root_visits=root_visits,
            nodes=sum(t.nodes for t in self._trees), elapsed=time.monotonic() - start,
            win_rate=win_rate, principal_variation=pv, moves=moves, stop_reason=reason,
            proof=proofs[0] if proofs else None, reused_visits=reused,
            threads=self.settings.threads,
            value=max((s.value for s in moves if s.value is not None), default=None),
        )


def _untried_move(board: Board, weights: Optional[PatternWeights]) -> MoveStats:
    """Stats for a move chosen without search: the evaluation's best, else the first."""
    legal = list(board.legal_moves)
    if weights is None or legal == [PASS]:
        return MoveStats(legal[0], 0, 0.5)
    values = []
    for move in legal:
        child = board.copy(stack=False)
        child.push(move)
        values.append((-weights.evaluate(child), move))
    value, move = max(values)
    return MoveStats(move, 0, 0.5, None, None, value)


def _stop_trees(trees: List[SearchTree]) -> None:
    for tree in trees:
        tree.stop()


def _player_from_settings(settings: SearchSettings,
                          on_progress: Optional[Callable[[SearchResult], None]]) -> MCTSPlayer:
    return MCTSPlayer(settings, on_progress=on_progress)
