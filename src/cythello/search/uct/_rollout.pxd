# cython: language_level=3
"""Playouts: finish a game from a position by a cheap policy, all in C (the portable
build, which hands work to the x86-64-v3 build where the CPU allows)."""
from libc.stdint cimport uint64_t
from cythello.core._rng cimport Rng

from cythello.search.uct._policies cimport ROLLOUT_RANDOM, ROLLOUT_HEURISTIC

# The final disc difference for the side to move; ``placed`` (or NULL) receives the squares
# each side played: [0] the side to move, [1] the other.
cdef int playout(uint64_t P, uint64_t O, int policy, Rng* rng, uint64_t* placed) noexcept nogil
