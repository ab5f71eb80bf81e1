"""How a searching player uses the endgame: whether a search plays the selective passes or
starts with an exact solve, and their answers as search results.

From ``selective_empties`` empty squares a search limited by time plays the selective
passes (:func:`plays_selective`, :func:`selective_result`) when half its time fits the
first pass at its solver's pace; the first pass must finish in that half, the others go
on to the end of the move (the last is exact).  Otherwise:

A search of a position with few enough empty squares first tries to solve it, with half
of its time (:data:`ENDGAME_TIME_CAP` for a search limited by iterations); if the solve
does not finish, the tree search gets the rest.  ``endgame_empties`` says from how many
empties.  With ``endgame_by_time`` that is only the most: the player also asks whether a
solve of that many empties is likely to settle the outcome in the time it has, from how
fast its own solver has run (:class:`SolverPace`) and what such solves cost.  So a short
move does not spend half its time on a solve it cannot finish, and a long one solves from
further out.
"""
from __future__ import annotations

import math
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple, TypeVar

from ...core._board import Board
from ..results import MoveStats, SearchResult, win_rate_of
from ..states import Proof, StopReason
from ._solver import SELECTIVE_PASSES, Solver
from .solve import EndgamePass, SolveAborted, SolveResult, solve, solve_selective

ENDGAME_TIME_CAP = 2.0           # seconds an iteration-limited search gives the solver

# What settling the outcome costs: the nodes within which an outcome-first solve proves
# win, draw or loss three times in four, by empties.  Measured on 40 held-out PUCT
# self-play positions per count from 17 to 24 empties, a fresh solver each
# (benchmarks/bench_endgame.py --pace, refitted whenever the solver's trees change, last
# on 2026-12-02), fitted as OUTCOME_NODES_AT_20 * OUTCOME_GROWTH ** (empties - 20).  The
# exact score takes several times more; but a solve cut short after proving a win or a
# draw still plays the move that secures it, so the outcome is what a solve must reach.
OUTCOME_NODES_AT_20 = 0.58e6
OUTCOME_GROWTH = 2.08
# What the first selective pass (73 %) costs, the same way (benchmarks/bench_endgame.py
# --pass-pace): a player plays by the passes only where that pass fits its move.
PASS_NODES_AT_20 = 0.34e6
PASS_GROWTH = 1.54
# Nodes per second assumed until the player has timed its own solver: a slow machine's
# one-thread rate, so that the first guess does not start solves that cannot finish.
DEFAULT_SOLVER_RATE = 5e6
MIN_TIMED_SOLVE = 0.02           # seconds: a shorter solve measures overheads, not speed
COMMIT_SECONDS = 1.0             # a move this long pays for committing the table up front

_T = TypeVar("_T")


def solve_seconds(time_limit: Optional[float]) -> float:
    """The time a search of ``time_limit`` seconds (None: limited by iterations) gives
    its exact solve."""
    return time_limit / 2 if time_limit else ENDGAME_TIME_CAP


def outcome_nodes(empties: int) -> float:
    """The nodes that settle the outcome of a position with ``empties`` empty squares
    three times in four (the fit above)."""
    return OUTCOME_NODES_AT_20 * OUTCOME_GROWTH ** (empties - 20)


class SolverPace:
    """How fast a player's solver runs (nodes per second: an average of its recent
    solves, :data:`DEFAULT_SOLVER_RATE` before the first), and so from how many empties
    a solve fits a time."""

    def __init__(self, rate: float = DEFAULT_SOLVER_RATE) -> None:
        self.rate = rate
        self.timed = False             # whether ``rate`` is measured, not assumed

    def record(self, nodes: int, seconds: float) -> None:
        """A solve (finished or not) searched ``nodes`` nodes in ``seconds``."""
        if seconds < MIN_TIMED_SOLVE or nodes <= 0:
            return
        measured = nodes / seconds
        # Half the weight to the newest: the machine's load changes, the solver's does not.
        self.rate = (self.rate + measured) / 2 if self.timed else measured
        self.timed = True

    def empties_within(self, seconds: float) -> int:
        """The most empty squares whose outcome a solve of ``seconds`` settles three
        times in four, at this pace (0 to 60)."""
        nodes = self.rate * seconds
        if nodes <= 0:
            return 0
        empties = 20 + math.floor(math.log(nodes / OUTCOME_NODES_AT_20)
                                  / math.log(OUTCOME_GROWTH))
        return min(max(empties, 0), 60)

    def __repr__(self) -> str:
        return f"SolverPace({self.rate / 1e6:.1f} M nodes/s{'' if self.timed else ', assumed'})"


def starts_with_solve(board: Board, endgame_empties: int, by_time: bool,
                      time_limit: Optional[float], pace: SolverPace) -> bool:
    """Whether a search of ``time_limit`` seconds (None: limited by iterations) of
    ``board`` tries an exact solve first: from ``endgame_empties`` empties, and with
    ``by_time`` only from as many as the time affords at the solver's ``pace``."""
    empties = board.empties()
    if empties > endgame_empties:
        return False
    return not by_time or empties <= pace.empties_within(solve_seconds(time_limit))


def solve_time(board: Board, endgame_empties: int, by_time: bool,
               time_limit: Optional[float], pace: SolverPace) -> Optional[float]:
    """The seconds a tree search of ``time_limit`` gives an exact solve of ``board`` first
    (:func:`starts_with_solve`'s rule), or None when it does not start with one."""
    if not starts_with_solve(board, endgame_empties, by_time, time_limit, pace):
        return None
    return solve_seconds(time_limit)


def _solve_until(board: Board, solver: Solver, deadline: float,
                 pace: Optional[SolverPace]) -> SolveResult:
    """An outcome-first solve until ``deadline``: finished, or what it had proven."""
    _reserve(solver, board, deadline)
    try:
        solved: SolveResult = solve(board, time_limit=max(1e-3, deadline - time.monotonic()),
                                    solver=solver, outcome_first=True)
    except SolveAborted as exc:
        solved = exc.partial             # cut short: no score, perhaps the outcome
    if pace is not None:
        pace.record(solved.nodes, solved.elapsed)
    return solved


def _reserve(solver: Solver, board: Board, deadline: float) -> None:
    """The table's memory before a player's first solve: committed at once (64 MB, tens of
    milliseconds, a tenth of a second the first time in a process; its time comes out of
    the solve's) when the move has :data:`COMMIT_SECONDS` left, so that the solve's speed
    is the search's; in a shorter move only mapped, each page committed as the solve first
    writes it, so that the move keeps its time."""
    solver.reserve(board.empties(), commit=deadline - time.monotonic() >= COMMIT_SECONDS)


def _playable(solved: SolveResult) -> bool:
    """Whether a solve cut short has a move to play: one that secures a proven win or
    draw, or in a proven loss one proven to lose by no more than ``lower``."""
    proof = solved.outcome
    return proof in (Proof.WIN, Proof.DRAW) or proof == Proof.LOSS and solved.lower > -64


def exact_result(board: Board, solver: Solver, start: float, deadline: float,
                 threads: int = 1, pace: Optional[SolverPace] = None,
                 until: Optional[float] = None) -> Optional[SearchResult]:
    """The solver's perfect move as a search result; or, when time runs out after the
    outcome is settled, the move with the best score proven so far: in a win or a draw the
    move that secures it (and the most discs the solve had reached), in a lost game the
    move proven to lose by least so far (discs are all that is left to play for, and a
    tree search, which plays by win rate, has no preference among lost moves); else None
    (a tree search takes over with the rest of the time).  A solve that has such a move by
    ``deadline`` but not the score goes on until ``until`` (the end of the move's time,
    when given): the tree search could not choose among proven wins either.  The solve's
    speed goes to ``pace``, finished or not."""
    solved = _solve_until(board, solver, deadline, pace)
    nodes = solved.nodes
    if solved.score is None and not _playable(solved):
        return None
    if solved.score is None and until is not None and until - time.monotonic() > MIN_TIMED_SOLVE:
        more = _solve_until(board, solver, until, pace)   # the table keeps what was proven
        nodes += more.nodes
        if more.score is not None or _playable(more) and more.lower >= solved.lower:
            solved = more
    move = solved.best_move
    if solved.score is not None:
        stats = MoveStats.exact(move, solved.score)
    else:                             # the outcome, and the best move's score at least lower
        proof = solved.outcome
        assert proof is not None      # _playable
        stats = MoveStats(move, 0, proof.win_rate, proof, None, float(solved.lower))
    return SearchResult(
        best_move=move, iterations=0, root_visits=0, nodes=nodes,
        elapsed=time.monotonic() - start, win_rate=stats.win_rate,
        principal_variation=[move], moves=[stats], stop_reason=StopReason.EXACT,
        proof=stats.proof, threads=threads, exact_score=solved.score)


def pass_nodes(empties: int) -> float:
    """The nodes within which the first selective pass (73 %) of a position with
    ``empties`` empty squares finishes three times in four (the fit above)."""
    return PASS_NODES_AT_20 * PASS_GROWTH ** (empties - 20)


def plays_selective(board: Board, selective_empties: int, seconds: Optional[float],
                    iterations: Optional[int], pace: SolverPace) -> bool:
    """Whether a search plays ``board`` by the selective endgame passes: from
    ``selective_empties`` empty squares, in a search limited by time (``seconds``; not by
    ``iterations``, a unit the passes do not have) whose first half fits the first pass at
    the solver's ``pace``.  Otherwise the exact solve by time, then the player's own
    search, as before."""
    empties = board.empties()
    return (0 < empties <= selective_empties and seconds is not None and iterations is None
            and pace.rate * solve_seconds(seconds) >= pass_nodes(empties))


def selective_result(board: Board, solver: Solver, start: float, deadline: float,
                     threads: int = 1, pace: Optional[SolverPace] = None,
                     on_pass: Optional[Callable[[EndgamePass], None]] = None
                     ) -> Optional[SearchResult]:
    """The selective endgame passes until ``deadline`` as a search result: the move and
    score of the most certain pass that proved one (depth = the empties, ``probability``
    its per-cut confidence, so a line shows ``22@87%``: each cut was 87 % sure, which is
    not the chance that the score is exact; the exact pass is an exact score; a pass cut
    short after its move reached a score gives that move and the score as its value).  The
    first pass must finish within half the time, as a solve must: else None, and the
    player's own search takes the other half.  The passes' speed goes to ``pace``; each
    finished pass to ``on_pass``."""
    first_width = SELECTIVE_PASSES[0][0]
    _reserve(solver, board, deadline)    # within the move, not past it
    half = start + (deadline - start) / 2
    passes: List[EndgamePass] = []
    # The move's work, call by call (a pass cut short before it proved a move is not
    # counted by solve_selective); the pace takes each call's nodes over that call's own
    # time, so that both figures of a rate cover the same work.
    work: List[Tuple[int, float]] = []   # (nodes, seconds) of each call
    try:
        first = solve_selective(board, max(1e-3, half - time.monotonic()), solver=solver,
                                widths=[first_width], exact=False, on_pass=on_pass)
        work.append((first[-1].nodes, first[-1].elapsed))
        if first[-1].finished:
            passes = first
            more = solve_selective(board, max(1e-3, deadline - time.monotonic()),
                                   solver=solver, guess=first[0].score,
                                   widths=[t for t, _ in SELECTIVE_PASSES[1:]],
                                   on_pass=on_pass)
            work.append((more[-1].nodes, more[-1].elapsed))
            passes += more
    except SolveAborted as exc:          # the first pass, or every later one, cut short
        work.append((exc.partial.nodes, exc.partial.elapsed))
    if pace is not None:
        for call_nodes, seconds in work:
            pace.record(call_nodes, seconds)
    nodes = sum(call_nodes for call_nodes, _ in work)
    if not passes:
        return None
    last = passes[-1]
    if last.exact and last.finished:
        stats = MoveStats.exact(last.best_move, last.score)
    elif last.exact and last.score > 0:
        # The exact pass cut short after its move reached a winning score: a proven win.
        stats = MoveStats(last.best_move, 0, Proof.WIN.win_rate, Proof.WIN, None,
                          float(last.score))
    else:
        stats = MoveStats(last.best_move, 0, win_rate_of(last.score), None, None,
                          float(last.score))
    return SearchResult(
        best_move=last.best_move, iterations=nodes, root_visits=0, nodes=nodes,
        elapsed=time.monotonic() - start, win_rate=stats.win_rate,
        principal_variation=[last.best_move], moves=[stats],
        stop_reason=StopReason.EXACT if last.exact else StopReason.TIME,
        proof=stats.proof, threads=threads,
        exact_score=last.score if last.exact and last.finished else None,
        value=float(last.score), depth=board.empties(), probability=last.certainty / 100)


class EndgameProgress:
    """What an endgame phase can say while it runs (its solves are C calls of up to the
    whole move): the move and score of its last finished selective pass, or until then a
    provisional move (the one a shallow search prefers), as a running search result."""

    def __init__(self, board: Board, start: float, threads: int, provisional: int) -> None:
        self.board, self.start, self.threads = board, start, threads
        self.provisional = provisional
        self.last: Optional[EndgamePass] = None
        self.nodes = 0
        self._earlier = 0                  # the nodes of the calls before this one
        self._call = 0                     # this call's nodes so far (each pass adds on)

    def add(self, step: EndgamePass) -> None:
        """A finished pass (called from the thread that solves)."""
        if step.nodes < self._call:        # a new solve_selective call counts from 0
            self._earlier += self._call
        self._call = step.nodes
        self.last = step
        self.nodes = self._earlier + self._call

    def snapshot(self) -> SearchResult:
        last = self.last
        if last is None:
            move, moves, value, probability = self.provisional, [], None, None
        else:
            move, value, probability = last.best_move, float(last.score), last.certainty / 100
            moves = [MoveStats(move, 0, win_rate_of(last.score), None, None, value)]
        return SearchResult(
            best_move=move, iterations=self.nodes, root_visits=0, nodes=self.nodes,
            elapsed=time.monotonic() - self.start,
            win_rate=moves[0].win_rate if moves else 0.5, principal_variation=[move],
            moves=moves, stop_reason=StopReason.RUNNING, threads=self.threads, value=value,
            depth=self.board.empties(), probability=probability)


def run_reporting(work: Callable[[], _T], on_progress: Optional[Callable[[SearchResult], None]],
                  interval: float, progress: EndgameProgress, stop: Callable[[], None]) -> _T:
    """``work()`` (an endgame phase: GIL-free solves), reporting ``progress`` to
    ``on_progress`` every ``interval`` seconds from this thread while it runs on another,
    so that a caller waiting for reports (an analysis line, a GUI's "thinking" display)
    is not left without any for the whole move.  Without ``on_progress`` it runs here.  A
    Ctrl-C or an error of ``on_progress`` stops the work (``stop``) before it is raised."""
    if on_progress is None:
        return work()
    box: Dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:       # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="cythello-endgame", daemon=True)
    worker.start()
    try:
        while True:
            worker.join(interval)
            if not worker.is_alive():
                break
            on_progress(progress.snapshot())
    except BaseException:
        stop()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]                 # type: ignore[misc]
    return box["value"]                    # type: ignore[return-value]
