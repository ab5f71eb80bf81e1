"""Labels for training positions: exact endgame scores where the solver is fast, and
elsewhere the score of a shallow alpha-beta search whose leaves are evaluated by the stages
already fitted (Buro's bootstrapping).  Both run in C without the GIL, so ``workers``
threads label in parallel.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List

import numpy as np

from ..core._board import Board
from ..eval import PatternWeights
from ..search.alphabeta._midgame import search_many
from ..search.endgame._solver import Solver


def _chunks(n: int, parts: int) -> List[slice]:
    step = max(1, -(-n // max(parts, 1)))
    return [slice(i, min(n, i + step)) for i in range(0, n, step)]


def _parallel(n: int, workers: int, job: Callable[[slice], np.ndarray]) -> np.ndarray:
    # Many small chunks balance the threads (solve times vary a lot).
    pieces = _chunks(n, workers * 16)
    if workers <= 1:
        return np.concatenate([job(s) for s in pieces]) if n else np.zeros(0)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return np.concatenate(list(pool.map(job, pieces))) if n else np.zeros(0)


def exact_scores(own: np.ndarray, opp: np.ndarray, workers: int = 1) -> np.ndarray:
    """The exact final disc difference (side to move) of each position."""
    # One solve call a position: its Python around the solve is about 1 us against ~5 ms
    # of solving at 14 empties (0.02%), so a batched C loop would buy nothing here.
    def job(s: slice) -> np.ndarray:
        solver = Solver(table_bits=16)
        out = np.empty(s.stop - s.start)
        for i, (p, o) in enumerate(zip(own[s], opp[s])):
            score, _, _ = solver.solve(Board.from_bitboards(int(p), int(o), 0))
            out[i] = score
        return out
    return _parallel(len(own), workers, job)


def search_scores(own: np.ndarray, opp: np.ndarray, depth: int, weights: PatternWeights,
                  workers: int = 1) -> np.ndarray:
    """The depth-``depth`` alpha-beta score (discs, side to move) of each position."""
    def job(s: slice) -> np.ndarray:
        return search_many(own[s], opp[s], depth, weights)
    return _parallel(len(own), workers, job)
