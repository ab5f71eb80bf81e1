"""The UCT search as a backend of the engine shell, and :class:`MCTSPlayer`, the shell
with it.

The trees live in C (:mod:`cythello.search.uct._tree`): one the threads share (``parallel=
"tree"``, each taking a virtual loss on its path) or one per thread (``"root"``, their root
statistics summed).  The backend runs them within a budget of iterations and a deadline,
merges their root statistics into a result, keeps the subtree of the position reached for
the next search (``reuse_tree``) and ponders by growing them in the background.
"""
from __future__ import annotations

import functools
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ...core._board import Board
from ...eval._patterns import PatternWeights
from ...squares import PASS
from .. import _interruptible
from ..engine import Budget, Engine, TreeSearchRules, Work
from ..phases import with_alphabeta_ending
from ..results import (
    MoveStats,
    RootMove,
    SearchResult,
    best_move,
    overall_reason,
    pool_symmetric_moves,
    unsettled,
)
from ..states import StopReason
from ._rollout import random_seed
from ._tree import SearchTree
from .settings import SearchSettings

__all__ = ["MCTSPlayer", "UCTSearch"]

SHORT_RUN = 20_000                     # iterations: a few ms, run without a helper thread
# The reasons a tree's run ends without more time helping it.
FINISHED = (StopReason.ITERATIONS, StopReason.NODES, StopReason.STOPPED, StopReason.SOLVED,
            StopReason.DECIDED)


def _run_seconds(deadline: float, quota: Optional[int], done: int) -> Optional[float]:
    """At most how long a tree's run may take: about nothing for a few iterations
    (self-play's hundreds), else until its deadline (0: none; None: unknown)."""
    if quota is not None and quota - done <= SHORT_RUN:
        return 0.0
    return deadline - time.monotonic() if deadline else None


class UCTSearch(TreeSearchRules):
    """The UCT backend (:class:`~cythello.search.engine.SearchBackend`): the trees of
    one player, with ``settings`` and the evaluation ``weights`` loaded once."""

    accepts_depth = False

    def __init__(self, settings: SearchSettings, weights: Optional[PatternWeights]) -> None:
        self.settings: SearchSettings = settings
        self.weights = weights
        self.threads = settings.search_threads
        self.book_scale = settings.eval_scale
        self.progress_interval = settings.progress_interval
        self.trees: List[SearchTree] = []
        self._quota: List[Optional[int]] = []
        self._done: List[int] = []
        self._reasons: List[StopReason] = []
        self._reused = 0

    def _tree_seed(self, i: int) -> int:
        seed = self.settings.seed
        if seed is None:
            return random_seed()
        return (seed * 0x9E3779B97F4A7C15 + i * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF

    def _root_at(self, board: Board) -> int:
        """Trees rooted at ``board``; the root visits kept from earlier searches."""
        count = self.settings.tree_count
        # Every tree advances (a list, not a short-circuit): each must drop its old root.
        if self.settings.reuse_tree and len(self.trees) == count and \
                all([tree.advance(board) for tree in self.trees]):
            return sum(tree.root_visits for tree in self.trees)
        # The weights as loaded, so that no tree loads them again.
        settings = self.settings.replace(eval_weights=self.weights)
        self.trees = [SearchTree(board, settings.replace(seed=self._tree_seed(i)))
                      for i in range(count)]
        return 0

    def begin(self, board: Board, budget: Budget) -> None:
        self._reused = self._root_at(board)
        for tree in self.trees:
            tree.clear_stop()
        n = len(self.trees)
        total = budget.iterations
        self._quota = [None] * n if total is None else [
            total // n + (1 if i < total % n else 0) for i in range(n)]
        self._done = [0] * n
        self._reasons = [StopReason.RUNNING] * n

    def _work(self, i: int, chunk_end: float) -> None:
        q = self._quota[i]
        left = None if q is None else q - self._done[i]
        if left is not None and left <= 0:
            self._reasons[i] = StopReason.ITERATIONS
            return
        ran, self._reasons[i] = self.trees[i].run(left, chunk_end)
        self._done[i] += ran

    def grow(self, until: Optional[float], deadline: Optional[float]) -> Optional[StopReason]:
        chunk_end = 0.0 if until is None else until        # the trees' 0: no deadline
        if len(self.trees) == 1:
            # A Ctrl-C on the main thread stops the search (_interruptible explains).
            _interruptible.call(functools.partial(self._work, 0, chunk_end), self.stop,
                                _run_seconds(chunk_end, self._quota[0], self._done[0]))
        else:
            _interruptible.run_all([functools.partial(self._work, i, chunk_end)
                                    for i in range(len(self.trees))], self.stop)
        if all(r in FINISHED for r in self._reasons):
            return overall_reason(self._reasons)
        self._reasons = [StopReason.RUNNING] * len(self.trees)
        return None

    def unsettled(self) -> bool:
        merged = self._merged_root()
        if any(row.proof for row in merged.values()):
            return False                         # a proof settles it either way
        return unsettled({m: row.visits for m, row in merged.items()},
                         {m: row.value for m, row in merged.items() if row.value is not None})

    def _merged_root(self) -> Dict[int, RootMove]:
        """The root moves' statistics summed over the trees."""
        merged: Dict[int, RootMove] = {}
        for tree in self.trees:
            for child in tree.child_stats():
                row = merged.setdefault(child.move, RootMove())
                row.visits += child.visits
                row.reward += child.reward
                row.proof = row.proof or child.proof
                if child.value is not None:
                    row.values.append(child.value)
        return merged

    def result(self, board: Board, start: float, reason: StopReason) -> SearchResult:
        merged = self._merged_root()
        pool_symmetric_moves(board, merged)
        moves = [MoveStats(m, row.visits, row.win_rate, row.proof, None, row.value)
                 for m, row in merged.items()]
        moves.sort(key=lambda s: (s.visits, s.win_rate), reverse=True)
        if not any(s.visits for s in moves) and not any(s.proof for s in moves):
            # Stopped before the first iteration (a stop during the endgame solve, say):
            # still answer with a legal move, the evaluation's choice when there is one.
            moves = [_untried_move(board, self.weights)]
        proofs = [t.root_proof for t in self.trees if t.root_proof]
        root_visits = sum(t.root_visits for t in self.trees)
        total_reward = sum(row.reward for row in merged.values())
        win_rate = total_reward / root_visits if root_visits else 0.5
        pv = self.trees[0].principal_variation()
        best = best_move(moves) if moves else list(board.legal_moves)[0]
        if pv and pv[0] != best:
            pv = [best]
        return SearchResult(
            best_move=best, iterations=sum(self._done), root_visits=root_visits,
            nodes=sum(t.nodes for t in self.trees), elapsed=time.monotonic() - start,
            win_rate=win_rate, principal_variation=pv, moves=moves, stop_reason=reason,
            proof=proofs[0] if proofs else None, reused_visits=self._reused,
            threads=self.threads,
            value=max((s.value for s in moves if s.value is not None), default=None),
        )

    def finish(self) -> None:
        pass

    def ponder(self, board: Board, inside: Set[int]
               ) -> Optional[Tuple[str, Work, Callable[[], None], Optional[Callable[[], None]]]]:
        if not self.settings.reuse_tree:
            return None
        self._root_at(board)
        for tree in self.trees:
            tree.clear_stop()
        trees = list(self.trees)
        return ("cythello-ponder", [(tree.run, (None, 0.0)) for tree in trees],
                functools.partial(_stop_trees, trees), None)

    def stop(self) -> None:
        for tree in self.trees:
            tree.stop()

    def clear_stop(self) -> None:
        for tree in self.trees:
            tree.clear_stop()

    def forget(self) -> None:
        self.trees = []


class MCTSPlayer(Engine):
    """Monte Carlo Tree Search player: the engine shell (:class:`~.engine.Engine`) with
    the UCT search.

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
    solver has shown (:mod:`~cythello.search.endgame.play`).

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
    ``results.UNSETTLED_RATIO`` of each other, or the most visited not the best valued) go on, in
    steps of half the budget, for up to ``time_extension`` budgets more, never past the
    clock's limit for one move.
    """

    LEGACY_ORDER = ("on_progress", "clock", "solve", "book", "stops_seen")

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
        # Loaded once here, so that a bad weights file is an error now, not at the search.
        self.eval_weights: Optional[PatternWeights] = settings.weights()
        self._uct = UCTSearch(settings, self.eval_weights)
        super().__init__(settings, with_alphabeta_ending(self._uct, settings, self.eval_weights),
                         settings.opening_book(), on_progress)
        self.settings: SearchSettings = settings

    @classmethod
    def preset(cls, name: str, *, on_progress: Optional[Callable[[SearchResult], None]] = None,
               **overrides: Any) -> MCTSPlayer:
        """A player at a difficulty level (``easy``, ``medium``, ``hard``, ``expert``), or
        ``classic`` (plain UCT with playouts)."""
        return cls(SearchSettings.preset(name, **overrides), on_progress=on_progress)

    @property
    def _trees(self) -> List[SearchTree]:
        """The backend's trees (for tests and benchmarks that look inside)."""
        return self._uct.trees

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

    def __reduce__(self) -> Any:
        # Settings only: trees, the solver and locks belong to one process.
        return (_player_from_settings, (self.settings, self.on_progress))


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
