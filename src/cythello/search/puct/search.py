"""PUCT search with your own network: :class:`PUCTSettings` and :class:`PUCTPlayer`.

AlphaZero's search: a child is chosen by Q + c_puct * P * sqrt(N) / (1 + n), P the
evaluator's prior, and a new leaf takes the evaluator's value instead of a playout.  The
tree lives in C (:mod:`cythello.search.puct._forest`); a search step gathers up to
``batch_size`` leaves (virtual loss spreads them), calls the evaluator once on the batch
and backs its values up.  Finished games inside the tree are scored exactly, without the
evaluator.  With the shipped :class:`~cythello.nn.PatternEvaluator`, ``threads=N`` searches
the tree on N threads at once, in C (:meth:`PuctForest.run_shared`).  For many games
sharing one batch, see :func:`cythello.selfplay.generate` with ``evaluator=``.
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Set, Tuple

import numpy as np

from ...book.store import load_book
from ...core._board import Board
from ...errors import SettingsError
from ...nn._pattern import PatternEvaluator
from ...nn.contract import check_output
from ..engine import Budget, Engine, TreeSearchRules, Work
from ..phases import with_alphabeta_ending
from ..results import DISC_SCALE, MoveStats, SearchResult, unsettled
from ..settings import MAX_ITERATIONS
from ..states import StopReason
from ._forest import PuctForest
from .settings import MAX_BATCH, PUCTSettings

if TYPE_CHECKING:      # Python 3.9's typing lacks it; annotations are not evaluated
    from typing_extensions import TypeGuard

# Simulations per call into C when the evaluator is the pattern evaluation (a millisecond
# or so: time limits and stop() are checked between calls).
NATIVE_CHUNK = 256
# Seconds per call of a search on several threads (threads start and end with each call;
# time limits and stop() are checked between calls).
SHARED_CHUNK = 0.02
MAX_ROOT_VISITS = 0xFFFFFFFF - (1 << 20)


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


def visit_weights(visits: np.ndarray, temperature: float) -> np.ndarray:
    """AlphaZero's move weights, visits ** (1 / temperature), scaled so that the most
    visited move weighs 1 (no power overflows, however small the temperature): the visited
    moves alike at an infinite temperature, the most visited alone near zero; a move
    never visited weighs 0 (all zero when none was)."""
    v = visits.astype(np.float64)
    top = float(v.max()) if v.size else 0.0
    if top <= 0:
        return np.zeros_like(v)
    seen = v > 0
    ratio = np.log(np.where(seen, v / top, 1.0)) / temperature      # <= 0, finite
    return np.where(seen, np.exp(ratio), 0.0)


def draw_move(moves: np.ndarray, visits: np.ndarray, temperature: float,
              rng: np.random.Generator) -> int:
    """A move drawn in proportion to visits ** (1 / temperature) (:func:`visit_weights`)."""
    weights = visit_weights(visits, temperature)
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


class PUCTSearch(TreeSearchRules):
    """The PUCT backend (:class:`~cythello.search.engine.SearchBackend`): one C tree
    guided by ``evaluator``, with ``settings``."""

    accepts_depth = False
    book_scale = DISC_SCALE

    def __init__(self, evaluator: Evaluate, settings: PUCTSettings) -> None:
        self.evaluator = evaluator
        self.settings: PUCTSettings = settings
        self.progress_interval = settings.progress_interval
        self.native = runs_in_c(evaluator)
        self.threads = _search_threads(evaluator, settings)
        self.forest = settings.forest(1)
        self.rng = np.random.default_rng(settings.seed)
        self.evaluator_calls = 0                # calls into Python, over the player's life
        self.recycled = 0                       # recyclings of the tree, over its life
        self._root: Optional[Board] = None      # the position the tree's root holds
        self._stop = False
        self._budget: Optional[int] = None
        self._noised = False
        self._calls = 0
        self._reused = 0

    def begin(self, board: Board, budget: Budget) -> None:
        self._reused = self._place_root(board)
        forest = self.forest
        if forest.root_expanded(0):
            root_noise(forest, 0, self.settings, self.rng)
        self._noised = forest.root_expanded(0)
        self._budget = budget.iterations
        self._calls = 0

    def grow(self, until: Optional[float], deadline: Optional[float]) -> Optional[StopReason]:
        s, forest, budget = self.settings, self.forest, self._budget
        while True:
            done = forest.simulations(0)
            if budget is not None and done >= budget:
                return StopReason.ITERATIONS
            # The root is expanded first whatever else happens: a result has moves.
            if forest.root_expanded(0):
                if until is not None and done and time.monotonic() >= until:
                    return None
                if self._stop:
                    return StopReason.STOPPED
                if forest.root_visits(0) > MAX_ROOT_VISITS - s.batch_size:
                    return StopReason.ITERATIONS    # visits are 32-bit counts (hours)
            leaves, recycled = _grow(forest, self.evaluator, s, self.native,
                                     None if budget is None else budget - done,
                                     self._calls + 1, self.threads)
            if leaves and not self.native:
                self._calls += 1
            self.recycled += recycled
            if not self._noised and forest.root_expanded(0):
                root_noise(forest, 0, s, self.rng)
                self._noised = True

    def unsettled(self) -> bool:
        moves, visits, values, _ = self.forest.root_children(0)
        return unsettled({int(m): int(n) for m, n in zip(moves, visits)},
                         {int(m): float(q) for m, q, n in zip(moves, values, visits) if n})

    def finish(self) -> None:
        self.evaluator_calls += self._calls
        self._calls = 0
        if self.forest.pending:                # interrupted between gathering and evaluating
            self.forest.cancel()

    def _place_root(self, board: Board) -> int:
        """Put ``board`` at the tree's root: the old tree's subtree when ``board``
        follows from its root by a few moves, else a fresh tree; the visits kept."""
        forest, old = self.forest, self._root
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

    def result(self, board: Board, start: float, reason: StopReason) -> SearchResult:
        forest = self.forest
        moves, visits, values, _ = forest.root_children(0)
        best = best_root_move(moves, visits, values)
        stats = [MoveStats(int(m), int(n), (float(q) + 1) / 2)
                 for m, n, q in sorted(zip(moves, visits, values), key=lambda r: -r[1])]
        return SearchResult(
            best_move=best, iterations=forest.simulations(0), root_visits=int(visits.sum()),
            nodes=forest.nodes(0), elapsed=time.monotonic() - start,
            win_rate=(root_mean(visits, values) + 1) / 2,
            principal_variation=forest.principal_variation(0), moves=stats,
            stop_reason=reason, reused_visits=self._reused, threads=self.threads)

    def ponder(self, board: Board, inside: Set[int]
               ) -> Optional[Tuple[str, Work, Callable[[], None], Optional[Callable[[], None]]]]:
        if not self.settings.reuse_tree:
            return None
        self._place_root(board)
        end = threading.Event()
        return ("cythello-puct-ponder",
                [(_ponder_loop, (self.forest, self.evaluator, self.settings, self.native,
                                 self.threads, end, inside))], end.set, None)

    def stop(self) -> None:
        self._stop = True

    def clear_stop(self) -> None:
        self._stop = False

    def forget(self) -> None:
        self._root = None


class PUCTPlayer(Engine):
    """A player whose search is PUCT guided by ``evaluator`` (see :mod:`cythello.nn`
    for the contract; by default the shipped pattern evaluation,
    :class:`~cythello.nn.PatternEvaluator`): the engine shell
    (:class:`~.engine.Engine`) with the PUCT search; ``settings`` (:class:`PUCTSettings`)
    or the settings by name.

        >>> player = PUCTPlayer(PatternEvaluator(), time_limit=1.0, batch_size=8)
        >>> player.choose_move(board)

    The evaluator runs on the calling thread (on a background thread while the player
    ponders); the tree work between its calls runs in C without the GIL.  The shipped
    :class:`~cythello.nn.PatternEvaluator` is called in C instead, on ``threads`` threads
    sharing the tree.  An evaluator
    that raises leaves the player usable (its exception goes on unchanged); a wrong answer
    raises :class:`~cythello.errors.EvaluatorError`.  The player serves the NBoard and GTP
    engines as every player does (per-search limits, a game clock, ``stop`` from another
    thread, pondering) and plays from an opening book when its settings name one
    (``book="default"``).  ``choose_move`` draws the game's first ``temperature_moves``
    moves in proportion to visits ** (1 / temperature), then plays the most visited."""

    LEGACY_ORDER = ("clock", "solve", "stops_seen", "on_progress", "book")

    def __init__(self, evaluator: Optional[Evaluate] = None,
                 settings: Optional[PUCTSettings] = None, **options: Any) -> None:
        if evaluator is None:                   # the shipped evaluation, called in C
            evaluator = PatternEvaluator()
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        if settings is not None and not isinstance(settings, PUCTSettings):
            raise TypeError(f"settings must be PUCTSettings, not {type(settings).__name__}")
        settings = settings.replace(**options) if settings is not None \
            else PUCTSettings(**options)
        _check_threads(evaluator, settings)
        self._puct = PUCTSearch(evaluator, settings)
        super().__init__(settings, with_alphabeta_ending(
            self._puct, settings,
            evaluator.weights if isinstance(evaluator, PatternEvaluator) else None),
            load_book(settings.book))
        self.settings: PUCTSettings = settings

    @property
    def evaluator(self) -> Evaluate:
        """The network (or any evaluator) guiding the search; it may be replaced between
        searches."""
        return self._puct.evaluator

    @evaluator.setter
    def evaluator(self, evaluator: Evaluate) -> None:
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        _check_threads(evaluator, self.settings)
        self._puct.evaluator = evaluator
        self._puct.native = runs_in_c(evaluator)
        self._puct.threads = _search_threads(evaluator, self.settings)

    @property
    def evaluator_calls(self) -> int:
        """Calls of the evaluator from Python, over the player's life."""
        return self._puct.evaluator_calls

    @property
    def recycled(self) -> int:
        """Recyclings of the tree, over the player's life."""
        return self._puct.recycled

    @property
    def _forest(self) -> PuctForest:
        """The backend's tree (for tests that look inside)."""
        return self._puct.forest

    def _choose(self, board: Board, result: SearchResult) -> int:
        s = self.settings
        if board.ply < s.temperature_moves and result.moves:
            moves = np.array([m.move for m in result.moves])
            visits = np.array([m.visits for m in result.moves])
            if visits.sum() > 0:
                return draw_move(moves, visits, s.temperature, self._puct.rng)
        return result.best_move

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.settings.as_dict().items()
                   if v != getattr(PUCTSettings(), k)}
        text = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"PUCTPlayer({self.evaluator!r}{', ' if text else ''}{text})"

    def __reduce__(self) -> Any:
        return (_player, (self.evaluator, self.settings))


def _check_threads(evaluator: Evaluate, settings: PUCTSettings) -> None:
    if settings.threads > 1 and not runs_in_c(evaluator):
        raise SettingsError(f"threads={settings.threads} needs the shipped "
                            "PatternEvaluator, which the threads call in C; a network "
                            "called from Python spreads its search with batch_size")


def _search_threads(evaluator: Evaluate, settings: PUCTSettings) -> int:
    """The threads a search of ``settings`` guided by ``evaluator`` runs on: for
    ``threads=0`` the cores, where the evaluator runs in C, else one."""
    return settings.search_threads if runs_in_c(evaluator) or settings.threads else 1


def _grow(forest: PuctForest, evaluator: Evaluate, settings: PUCTSettings, native: bool,
          budget: Optional[int], call: int, threads: int) -> Tuple[int, bool]:
    """One search step of tree 0 (a chunk of them in C when ``native``, on
    ``threads`` threads once the root is expanded, within the ``budget`` of
    simulations left), then a recycling if the tree filled up (and the settings ask for
    it): the leaves evaluated and whether it was recycled."""
    want = settings.batch_size if budget is None else min(settings.batch_size, budget)
    steps = 1
    if native and threads > 1 and forest.root_expanded(0):
        assert runs_in_c(evaluator)
        leaves = int(forest.run_shared(evaluator, 0, threads,
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
                 native: bool, threads: int, end: threading.Event, inside: Set[int]) -> None:
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
            _grow(forest, evaluator, settings, native, None, call, threads)
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
