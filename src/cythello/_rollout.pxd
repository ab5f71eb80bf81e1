# cython: language_level=3
"""Playouts: finish a game from a position by a cheap policy, all in C."""
from libc.stdint cimport uint64_t
from cythello._rng cimport Rng

cdef enum:
    ROLLOUT_RANDOM = 0        # uniform over legal moves
    ROLLOUT_HEURISTIC = 1     # weighted: corners, edges, quiet moves; X/C squares avoided

cdef int playout(uint64_t P, uint64_t O, int policy, Rng* rng) noexcept nogil
cdef int pick_move(uint64_t P, uint64_t O, uint64_t moves, int policy, Rng* rng) noexcept nogil
