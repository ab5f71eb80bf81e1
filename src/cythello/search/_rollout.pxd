# cython: language_level=3
"""Playouts: finish a game from a position by a cheap policy, all in C (the portable
build, which hands work to the x86-64-v3 build where the CPU allows)."""
from libc.stdint cimport uint64_t
from cythello.core._rng cimport Rng

from cythello.search._policies cimport ROLLOUT_RANDOM, ROLLOUT_HEURISTIC

cdef int playout(uint64_t P, uint64_t O, int policy, Rng* rng) noexcept nogil
