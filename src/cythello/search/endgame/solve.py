"""Exact endgame solving: the perfect move and the final disc difference under perfect play.

    >>> result = cythello.solve(board)          # SolveResult(score, best_move, nodes, ...)
    >>> cythello.solve_outcome(board)           # only win, draw or loss: faster
    >>> cythello.solve_moves(board)             # {move: exact score} for every legal move

Scores are for the side to move, empties counted for the winner (as in the FFO suite), so
every final score is even.  A solve is a series of null-window searches (MTD(f), Plaat et
al. 1996): each asks whether the score reaches a test value, starting from a guess by a
shallow search with the learned evaluation (from 20 empties, by a cheap selective pass
first, as Edax starts), and the transposition table carries the work of each step into
the next.  On FFO #40-#49 this takes a third of the nodes of one wide-window search
inside the outcome's bounds.  ``outcome_first`` (what the players use)
first settles win, draw or loss with two null windows around 0.  The work
grows about threefold per empty square, so give a ``time_limit`` (or ``node_limit``) when in
doubt: a solve that hits its limit raises :class:`SolveAborted`, which carries what was
proven by then (bounds, and the best move when known).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from ...core._board import Board
from ...errors import InvalidBoardError
from ...squares import PASS, square_name
from .. import _interruptible
from ..settings import check_int
from ..settings import deadline as make_deadline
from ..states import Proof
from ._solver import SELECTIVE_PASSES, Solver, certainty_of

SHORT_EMPTIES = 14        # solved within milliseconds: no helper thread for Ctrl-C
SHORT_NODES = 100_000
# An exact solve of PRESEARCH_EMPTIES or more empties starts as Edax's does, with a cheap
# selective pass (Multi-ProbCut width PRESEARCH_WIDTH, 87 %): its score is a closer first
# guess and its best moves order the exact search from the table.  Fewer empties: it
# costs more than it saves; an outcome-only solve: likewise (bench_endgame.py --presearch).
PRESEARCH_EMPTIES = 20
PRESEARCH_WIDTH = 1.5


@dataclass
class SolveResult:
    """What a solve proved.  ``score`` is the exact final disc difference for the side to
    move (None when only the outcome was asked for, or the solve was cut short); the score
    lies in ``[lower, upper]`` in any case."""

    score: Optional[int]
    best_move: int
    nodes: int
    elapsed: float
    lower: int = -64
    upper: int = 64

    @property
    def best_move_name(self) -> str:
        """The best move as text."""
        return square_name(self.best_move)

    @property
    def outcome(self) -> Optional[Proof]:
        """Win, draw or loss for the side to move, once the bounds settle it (None before)."""
        if self.lower > 0:
            return Proof.WIN
        if self.upper < 0:
            return Proof.LOSS
        if self.lower == self.upper == 0:
            return Proof.DRAW
        return None

    def proven(self) -> str:
        """What a solve cut short had proven, in words: ``score in [+2, +64], best so far
        c4`` (a best move is known once a test value was reached)."""
        best = (f"best so far {self.best_move_name}" if self.lower > -64
                else "no move proven yet")
        return f"score in [{self.lower:+d}, {self.upper:+d}], {best}"


class SolveAborted(RuntimeError):
    """The solve hit its time or node limit (or was stopped) before it finished;
    ``partial`` holds what it had proven (bounds, best move when known, nodes, time), and
    the message says it, as ``cythello solve`` does."""

    def __init__(self, message: str, partial: SolveResult) -> None:
        super().__init__(message)
        self.partial = partial


def _check(board: Board, node_limit: Optional[int]) -> None:
    if not isinstance(board, Board):
        raise TypeError(f"solve needs a cythello.Board, not {type(board).__name__}")
    if board.is_game_over():
        raise InvalidBoardError("the game is over: there is nothing to solve")
    if node_limit is not None:
        check_int("node_limit", node_limit, 1, 2**63 - 1)


def first_guess(board: Board) -> int:
    """An even guess at the exact score: a depth-6 (fewer near the end) alpha-beta search
    with the learned evaluation, about a millisecond.  The closer the guess, the fewer
    null-window steps (FFO #40-#49: 0.84 G nodes from this guess, 1.35 G from the static
    evaluation alone)."""
    from ...eval.weights import default_weights
    from ..alphabeta._midgame import search
    value = search(board, min(6, max(1, board.empties() - 8)), default_weights())[0]
    return max(-64, min(64, 2 * round(value / 2)))


def _seconds(board: Board, deadline: float, node_limit: Optional[int]) -> Optional[float]:
    """At most how long a solve may take (None: unknown), for :mod:`._interruptible`:
    about nothing with few empties or nodes."""
    if board.empties() <= SHORT_EMPTIES or node_limit is not None and node_limit <= SHORT_NODES:
        return 0.0
    return deadline - time.monotonic() if deadline else None


def _reserved(board: Board, solver: Solver) -> Solver:
    """``solver`` with its table's memory committed if ``board`` will use it: done before
    the caller starts its clock, so that the time limit is the search's (committing 64 MB
    can take longer than a short limit on a busy machine)."""
    solver.reserve(board.empties())
    return solver


def _drive(board: Board, solver: Solver, deadline: float, node_limit: Optional[int],
           exact: bool, on_step: Optional[Callable[[SolveResult], None]] = None,
           outcome_first: bool = False, probcut: Optional[float] = None,
           guess: Optional[int] = None, presearch: Sequence[float] = ()) -> SolveResult:
    """The root driver: null windows for the outcome (when asked, or when only the
    outcome is wanted), then null windows from a guess (``first_guess`` without one)
    until the bounds meet; with ``probcut``, of that selective pass.  ``presearch``:
    selective passes to run first (their widths), each from the last one's score: they
    prove nothing, but their score is the next guess and their best moves, in the shared
    table, order the search that follows."""
    start = time.monotonic()
    result = SolveResult(None, PASS, 0, 0.0)
    legal = list(board.legal_moves)
    result.best_move = legal[0]

    def step(alpha: int, beta: int, width: Optional[float] = probcut,
             into: SolveResult = result) -> int:
        limit = None if node_limit is None else max(1, node_limit - result.nodes)
        score, move, aborted = _interruptible.call(
            lambda: solver.solve(board, alpha, beta, limit, deadline, width), solver.stop,
            _seconds(board, deadline, limit), solver.clear_stop)
        result.nodes += solver.nodes
        result.elapsed = time.monotonic() - start
        if aborted:
            raise SolveAborted(f"solve stopped after {result.nodes:,} nodes, "
                               f"{result.elapsed:.2f} s: {result.proven()}", result)
        if score > alpha:
            into.best_move = move            # it reached the score: a best move so far
        if score <= alpha:
            into.upper = min(into.upper, score)
        if score >= beta:
            into.lower = max(into.lower, score)
        if alpha < score < beta:
            into.lower = into.upper = score
        if into.upper < into.lower:
            # Only a selective pass's answers can cross (its cuts are not consistent from
            # one window to the next): the score is where both tests left it.
            into.upper = into.lower
        if on_step is not None and into is result:
            on_step(result)
        return score

    def converge(into: SolveResult, guess: int, width: Optional[float]) -> None:
        # MTD(f): is the score at least `test`?  Each answer moves one bound to the value
        # found, until the bounds meet.
        guess = min(max(guess, into.lower), into.upper)
        while into.lower < into.upper:
            test = guess if guess > into.lower else into.lower + 1
            guess = step(test - 1, test, width, into)

    for width in presearch:
        known = SolveResult(None, PASS, 0, 0.0)
        converge(known, first_guess(board) if guess is None else guess, width)
        guess = known.lower
    # The outcome: above 0 is a win; otherwise at least 0 is a draw (scores are even).
    if (outcome_first or not exact) and step(0, 1) <= 0:
        step(-1, 0)
    if exact:
        converge(result, first_guess(board) if guess is None else guess, probcut)
    if result.lower == result.upper:
        result.score = result.lower
    return result


def solve(board: Board, time_limit: Optional[float] = None, node_limit: Optional[int] = None,
          solver: Optional[Solver] = None,
          on_step: Optional[Callable[[SolveResult], None]] = None,
          threads: int = 1, outcome_first: bool = False) -> SolveResult:
    """The exact score and a best move of ``board`` (GIL released while it runs), on
    ``threads`` threads (ignored when a ``solver`` is given: it has its own);
    ``on_step`` sees the bounds after each null-window step.  With ``outcome_first`` the
    first steps settle win, draw or loss, so that a solve cut short has proven the outcome
    more often (a little more work in all); without it, a solve of PRESEARCH_EMPTIES or
    more empties first runs the 87 % selective pass, which proves nothing but leads the
    exact search (a cut-short solve may then have proven nothing yet)."""
    _check(board, node_limit)
    solver = _reserved(board, solver or Solver(threads=threads))
    presearch = ((PRESEARCH_WIDTH,) if board.empties() >= PRESEARCH_EMPTIES
                 and not outcome_first and solver.weights is not None else ())
    return _drive(board, solver, make_deadline(time_limit), node_limit, True, on_step,
                  outcome_first, presearch=presearch)


def solve_outcome(board: Board, time_limit: Optional[float] = None,
                  node_limit: Optional[int] = None,
                  solver: Optional[Solver] = None, threads: int = 1) -> SolveResult:
    """Only whether the side to move wins, draws or loses under perfect play (``outcome``),
    with a move that achieves it: two null-window searches, often far cheaper than the
    exact score."""
    _check(board, node_limit)
    solver = _reserved(board, solver or Solver(threads=threads))
    return _drive(board, solver, make_deadline(time_limit), node_limit, False)


def solve_moves(board: Board, time_limit: Optional[float] = None,
                node_limit: Optional[int] = None) -> Dict[int, int]:
    """The exact score of every legal move, as the ``.obf`` files list them."""
    _check(board, node_limit)
    solver = _reserved(board, Solver())
    start = time.monotonic()
    deadline = make_deadline(time_limit)
    scores = _interruptible.call(lambda: solver.move_scores(board, node_limit, deadline),
                                 solver.stop, _seconds(board, deadline, node_limit))
    if scores is None:
        raise SolveAborted("solve_moves hit its limit",
                           SolveResult(None, PASS, solver.nodes, time.monotonic() - start))
    return dict(scores)


@dataclass
class EndgamePass:
    """One pass of a selective endgame search: the score and best move of a search to the
    end of the game whose Multi-ProbCut cuts were each ``certainty`` percent sure (Edax's
    73, 87, 95, 98, 99 %), or of the exact solve (``certainty`` 100), or the exact
    win/draw/loss search (``wld``: the score's bounds settle the outcome).  ``certainty``
    is each cut's confidence, not the pass's: a pass makes many cuts, so its score is
    exact less often than that (docs/explanation/engine.md)."""

    certainty: int
    score: int                       # cut short: the score its move reached at least
    best_move: int
    nodes: int
    elapsed: float                   # seconds since the first pass began
    width: Optional[float] = None    # Multi-ProbCut's t; None: exact
    # A pass cut short after one of its null windows failed high: its move is proven (at
    # its certainty) to reach ``score``, its score lies in ``[score, upper]``.
    finished: bool = True
    upper: Optional[int] = None      # the score's upper bound (finished: the score)
    wld: bool = False                # the win/draw/loss search: ``score`` is a lower bound

    def __post_init__(self) -> None:
        if self.upper is None:
            self.upper = self.score if self.finished and not self.wld else 64

    @property
    def outcome(self) -> Optional[Proof]:
        """Win, draw or loss, where this pass proved it (exact and WLD passes)."""
        if self.width is not None:
            return None
        upper = 64 if self.upper is None else self.upper
        return SolveResult(None, self.best_move, 0, 0.0, self.score, upper).outcome

    @property
    def exact(self) -> bool:
        """Whether this pass is the exact solve."""
        return self.width is None and not self.wld

    @property
    def label(self) -> str:
        """As the classic engines print a pass: ``@87%``, ``WLD`` or ``exact``."""
        return "WLD" if self.wld else "exact" if self.exact else f"@{self.certainty}%"

    @property
    def score_text(self) -> str:
        """The score, or for a pass cut short its bounds: ``+4``, ``>= +4`` or
        ``+4..+10``; for the WLD pass the outcome (``win``, ``draw``, ``loss``)."""
        if self.wld:
            return str(self.outcome)
        if self.finished:
            return f"{self.score:+d}"
        if self.upper is None or self.upper >= 64:
            return f">= {self.score:+d}"
        return f"{self.score:+d}..{self.upper:+d}"

    @property
    def best_move_name(self) -> str:
        """The best move as text."""
        return square_name(self.best_move)


def solve_selective(board: Board, time_limit: Optional[float] = None,
                    node_limit: Optional[int] = None, solver: Optional[Solver] = None,
                    threads: int = 1,
                    on_pass: Optional[Callable[[EndgamePass], None]] = None,
                    widths: Optional[List[float]] = None, exact: bool = True,
                    guess: Optional[int] = None, wld: bool = False) -> List[EndgamePass]:
    """A selective endgame search: passes of rising certainty (Multi-ProbCut widths
    ``widths``, by default Edax's 1.1, 1.5, 2.0, 2.6, 3.3 standard deviations: 73 % to
    99 %), then the exact solve, each starting from the last one's score and sharing its
    transposition table, until the time or node limit; returns the passes that finished
    (the last is the most certain), each also handed to ``on_pass``.  ``exact=False``
    leaves the exact solve out; ``guess`` is the first pass's starting score (else a
    shallow search's).  With ``wld`` the exact solve first settles win, draw or loss by
    two null windows around the draw, and reports that as a pass of its own (``WLD``)
    before it goes on to the score from there.  A pass cut short after it proved a move
    (a null window failed high) comes last, ``finished`` False: its move reached ``score``
    at its certainty, more sure than the pass before; one cut short before that counts
    for nothing.  When no pass has a move, raises :class:`SolveAborted`.
    Far cheaper than the exact solve (FFO-like positions at 20-24 empties: the 87 % pass
    in a sixth of its time, its move the best in 9 of 10), so a player can play the
    endgame by it from further out (docs/explanation/engine.md)."""
    _check(board, node_limit)
    solver = _reserved(board, solver or Solver(threads=threads))
    deadline = make_deadline(time_limit)
    start = time.monotonic()
    plan: List[Optional[float]] = [*(widths if widths is not None
                                     else [t for t, _ in SELECTIVE_PASSES])]
    if exact:
        plan.append(None)
    done: List[EndgamePass] = []
    nodes = 0

    def report(step: EndgamePass) -> None:
        done.append(step)
        if on_pass is not None:
            on_pass(step)

    def settled(known: SolveResult) -> None:
        # The exact solve's first steps (outcome_first) settle win, draw or loss: the WLD
        # pass, said once.
        if known.outcome is None or done and done[-1].wld:
            return
        # In a lost game no move is proven: the last pass's stands.
        move = known.best_move if known.lower > -64 or not done else done[-1].best_move
        report(EndgamePass(100, known.lower, move, nodes + known.nodes,
                           time.monotonic() - start, None, upper=known.upper, wld=True))

    for width in plan:
        limit = None if node_limit is None else node_limit - nodes
        if limit is not None and limit <= 0:
            break
        outcome_first = wld and width is None
        try:
            found = _drive(board, solver, deadline, limit, True,
                           on_step=settled if outcome_first else None,
                           outcome_first=outcome_first, probcut=width, guess=guess)
        except SolveAborted as exc:
            nodes += exc.partial.nodes
            cut = exc.partial
            if cut.lower > -64 and not (done and done[-1].wld and cut.lower <= done[-1].score):
                # A test value was reached: its move is the most certain one known.
                report(EndgamePass(100 if width is None else certainty_of(width), cut.lower,
                                   cut.best_move, nodes, time.monotonic() - start, width,
                                   finished=False, upper=cut.upper))
            break
        nodes += found.nodes
        assert found.score is not None
        guess = found.score
        report(EndgamePass(100 if width is None else certainty_of(width), found.score,
                           found.best_move, nodes, time.monotonic() - start, width))
    if not done:
        raise SolveAborted(f"no selective pass finished: {nodes:,} nodes, "
                           f"{time.monotonic() - start:.2f} s",
                           SolveResult(None, PASS, nodes, time.monotonic() - start))
    return done
