"""The pattern set of cythello's evaluation: one home for what the features are.

A position is evaluated, for the side to move, as the sum of one learned weight per
pattern instance (the configuration of its squares: empty, mover's disc, opponent's disc)
plus a parity term and a weight for each side's mobility (its number of legal moves), with
one weight set per game stage (by the number of empty squares).
The patterns are those of the Logistello family: the edge with both X-squares, the 2x5
and 3x3 corner blocks, rows/columns 2-4 and the diagonals of length 4-8; every pattern
appears in all its symmetric positions on the board (46 instances), and its instances
share one weight table, so the evaluation is symmetric under the 8 board symmetries.

Configurations that a pattern's own symmetry maps onto each other (a row read left to
right or right to left) share a weight too: the tables are *packed* to one entry per
such pair, which halves what training must learn and keeps the evaluation exactly
symmetric.

Mobility was added in 0.3.0: fitted to the same exact endgame scores (13-16 empties,
227,531 positions), it lowered the validation error from 6.71 to 6.54 discs, and from 4.44
to 4.25 on bootstrapped labels at 21-24 empties; potential mobility added nothing more
(6.51, 4.24), and three more 10-square patterns (Edax's angle+X and corner+block, NTest's
corner triangle) 0.07-0.15 for 79 % more weights and 12 more table reads.

The C evaluator (``_patterns.pyx``) reads each pattern from a transformed board with a few
shifts; ``tests/test_eval.py`` checks that it reads exactly the squares listed here, in
this order.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import List, Tuple

import numpy as np

from ..core._board import transform_square
from ..squares import SQUARE_NAMES


@dataclass(frozen=True)
class Pattern:
    """A pattern: its name and its squares in digit order (digit i has weight 3**i)."""

    name: str
    squares: Tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.squares)


def _row(r: int) -> Tuple[str, ...]:
    return tuple(f"{c}{r}" for c in "abcdefgh")


def _diagonal(length: int) -> Tuple[str, ...]:
    """The diagonal of ``length`` squares that ends in h(length), from row 1 down."""
    first = 8 - length
    return tuple(f"{'abcdefgh'[first + i]}{i + 1}" for i in range(length))


# The order matters: it is the order of the weight tables in the weights file and in C.
PATTERNS: Tuple[Pattern, ...] = (
    Pattern("edge+2X", _row(1) + ("b2", "g2")),
    Pattern("corner 2x5", ("a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2")),
    Pattern("corner 3x3", ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")),
    Pattern("row 2", _row(2)),
    Pattern("row 3", _row(3)),
    Pattern("row 4", _row(4)),
    Pattern("diagonal 8", _diagonal(8)),
    Pattern("diagonal 7", _diagonal(7)),
    Pattern("diagonal 6", _diagonal(6)),
    Pattern("diagonal 5", _diagonal(5)),
    Pattern("diagonal 4", _diagonal(4)),
)

# Stages: one weight set per STAGE_WIDTH empties (1-4, 5-8, ..., 57-60); a position with
# no empty square uses the first.  Four empties a stage keep enough positions per stage
# for a few hundred thousand training positions to fill the tables.
STAGE_WIDTH = 4
N_STAGES = 15
SCALE = 128                          # weights are int16 in 1/128 disc
PARITY_WEIGHTS = 2                   # one weight for an even, one for an odd number of empties
MOBILITY_SLOTS = 32                  # per side: 0 to 31 legal moves (more count as 31)


def stage_of(empties: int) -> int:
    """The stage (weight set) of a position with ``empties`` empty squares."""
    return max(empties - 1, 0) // STAGE_WIDTH


# -- symmetries -------------------------------------------------------------------------------

@dataclass(frozen=True)
class PatternLayout:
    """Derived tables of one pattern: its instances and its packing."""

    pattern: Pattern
    squares: Tuple[int, ...]          # square indices in digit order
    instances: Tuple[int, ...]        # symmetries k whose transformed board shows a new instance
    pack: np.ndarray                  # configuration index (3**n) -> packed weight slot
    packed_size: int

    def instance_squares(self, k: int) -> Tuple[int, ...]:
        """The squares the instance of symmetry ``k`` reads, in digit order: reading the
        board transformed by ``k`` at the pattern's squares is reading the original board
        at these."""
        inverse = {transform_square(s, k): s for s in range(64)}
        return tuple(inverse[s] for s in self.squares)


def layout_of(pattern: Pattern) -> PatternLayout:
    """The derived tables of ``pattern`` (any square list: the shipped ones or a candidate)."""
    squares = tuple(SQUARE_NAMES.index(name) for name in pattern.squares)
    n = len(squares)
    seen = []
    instances = []
    permutations = []                 # digit permutations from the pattern's own symmetries
    for k in range(8):
        read = {transform_square(s, k): s for s in range(64)}
        inst = tuple(read[s] for s in squares)
        if frozenset(inst) not in seen:
            seen.append(frozenset(inst))
            instances.append(k)
        if frozenset(inst) == frozenset(squares):
            # Symmetry k maps the pattern onto itself: digit i then reads square inst[i],
            # which is digit perm[i] of the untransformed pattern.
            permutations.append([squares.index(s) for s in inst])
    powers = 3 ** np.arange(n, dtype=np.int64)
    configs = np.arange(3 ** n, dtype=np.int64)
    digits = (configs[:, None] // powers[None, :]) % 3            # (3**n, n)
    representative = configs.copy()
    for perm in permutations:
        image = (digits[:, perm] * powers[None, :]).sum(axis=1)
        representative = np.minimum(representative, image)
    reps, pack = np.unique(representative, return_inverse=True)
    return PatternLayout(pattern, squares, tuple(instances), pack.astype(np.int32), len(reps))


@lru_cache(maxsize=1)
def layouts() -> Tuple[PatternLayout, ...]:
    """The derived tables of every pattern, in :data:`PATTERNS` order."""
    return tuple(layout_of(p) for p in PATTERNS)


def packed_offsets() -> List[int]:
    """Where each pattern's packed weights start in a stage's weight vector; the parity
    weights follow the last pattern, then the mover's and the opponent's mobility."""
    offsets, total = [], 0
    for lay in layouts():
        offsets.append(total)
        total += lay.packed_size
    return offsets + [total]


def packed_size() -> int:
    """Weights per stage, packed (the unknowns a fit solves for)."""
    return packed_offsets()[-1] + PARITY_WEIGHTS + 2 * MOBILITY_SLOTS


def n_features() -> int:
    """Features per position: one per pattern instance, then parity and both mobilities."""
    return sum(len(lay.instances) for lay in layouts()) + 3


def layout_id() -> str:
    """A digest of the feature layout (patterns, instances, packing, stages, scale): a
    weights file records it, and one made for another layout is refused."""
    h = hashlib.sha256()
    for lay in layouts():
        h.update(repr((lay.pattern.name, lay.squares, lay.instances, lay.packed_size)).encode())
    h.update(repr((STAGE_WIDTH, N_STAGES, SCALE, PARITY_WEIGHTS)).encode())
    h.update(repr(("mobility", MOBILITY_SLOTS)).encode())
    return h.hexdigest()[:16]


# The layout of cythello 0.2.0 (the patterns and parity, no mobility): its weights files
# still load, with zero mobility weights, which gives exactly their evaluation.
LAYOUT_0_2 = "7358c7e1bef933bc"
PACKED_SIZE_0_2 = 113879
