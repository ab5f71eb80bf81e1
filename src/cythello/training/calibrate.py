"""Side-to-move calibration: stage offsets that make the evaluation agree with itself one
move later.

Labels bootstrapped from a search into later stages carry a small bias toward the side to
move, and it adds up stage after stage: the shipped round-3 fit valued a position about 3
discs above its own best reply's value at 20-24 empties and 16 discs above it at 60, so
the start position read +8 for the side to move.  That is a constant per stage and parity
of the empties, which the parity weights can absorb: for each number of empties e,

    b(e) + b(e - 1) = D(e),  D(e) = mean over positions of E(p) - max_c -E(c),

where b is the offset to remove and c runs over the moves of p.  Each equation ties an
odd and an even count, so the offsets are fitted by least squares with a small pull
toward equal odd and even offsets within a stage (the equations alone cannot tell a shift
of all odd offsets up and all even ones down).  Stages fitted to exact scores are left as
they are (they are unbiased against those; near the end, odd and even counts differ for
real).  Measured on self-play positions.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterable, List, Union

import numpy as np

from ..core._board import Board
from ..eval import patterns
from ..eval._patterns import PatternWeights
from ..eval.weights import unpack

PULL = 0.1                     # weight of the equal-odd-and-even equations


def consistency(weights: PatternWeights, boards: Iterable[Board]) -> Dict[int, "tuple[float, int]"]:
    """``{empties: (mean of E(p) - max over moves of -E(child), positions)}`` for the
    positions that have a legal move."""
    sums: Dict[int, "list[float]"] = {}
    for board in boards:
        moves = list(board.legal_moves)
        if not moves:
            continue
        best = -1e9
        for move in moves:
            board.push(move)
            best = max(best, -weights.evaluate(board))
            board.pop()
        sums.setdefault(board.empties(), []).append(weights.evaluate(board) - best)
    return {e: (float(np.mean(v)), len(v)) for e, v in sums.items()}


def stage_offsets(gaps: Dict[int, "tuple[float, int]"], exact_empties: int) -> np.ndarray:
    """The offsets (discs, stages x 2: even, odd empties) that remove the gaps ``D(e)``
    of :func:`consistency` in the least-squares sense; 0 for the stages of up to
    ``exact_empties`` empties."""
    first = patterns.stage_of(exact_empties) + 1          # the first bootstrapped stage
    offsets = np.zeros((patterns.N_STAGES, 2))
    free = [(s, q) for s in range(first, patterns.N_STAGES) for q in (0, 1)]
    column = {slot: i for i, slot in enumerate(free)}
    data = [(e, gap, count) for e, (gap, count) in sorted(gaps.items())
            if patterns.stage_of(e) >= first]
    if not data:
        return offsets
    rows, rhs = [], []
    for e, gap, count in data:
        row = np.zeros(len(free))
        for k in (e, e - 1):                              # b(e) + b(e - 1) = D(e)
            slot = (patterns.stage_of(k), k % 2)
            if slot in column:
                row[column[slot]] += 1.0
        rows.append(row * np.sqrt(count))
        rhs.append(gap * np.sqrt(count))
    pull = PULL * np.sqrt(max(count for _, _, count in data))
    for s in range(first, patterns.N_STAGES):
        row = np.zeros(len(free))
        row[column[(s, 0)]], row[column[(s, 1)]] = pull, -pull
        rows.append(row)
        rhs.append(0.0)
    solution = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    for (s, q), value in zip(free, solution):
        offsets[s, q] = value
    return offsets


def apply_offsets(packed: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Packed weights with ``offsets`` (discs) taken off each stage's parity weights."""
    out = np.asarray(packed).astype(np.int32).copy()
    parity = patterns.packed_offsets()[-1]
    out[:, parity:parity + 2] -= np.rint(offsets * patterns.SCALE).astype(np.int32)
    clipped: np.ndarray = np.clip(out, -32768, 32767).astype(np.int16)
    return clipped


def calibrate(packed: np.ndarray, boards: Iterable[Board],
              exact_empties: int) -> "tuple[np.ndarray, np.ndarray]":
    """Calibrated packed weights, and the offsets taken off (discs, stages x 2)."""
    weights = PatternWeights(unpack(np.asarray(packed)), {})
    offsets = stage_offsets(consistency(weights, boards), exact_empties)
    return apply_offsets(packed, offsets), offsets


def sample_boards(run_dir: Union[str, Path], count: int, seed: int) -> List[Board]:
    """``count`` positions of a self-play run, drawn with a seeded generator (the same
    sample for the same run and seed)."""
    from ..selfplay import load
    data = load(run_dir)
    n = len(data["black"])
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(n, size=min(count, n), replace=False))
    return [Board.from_bitboards(int(data["black"][i]), int(data["white"][i]),
                                 int(data["turn"][i])) for i in rows]
