# cython: language_level=3
"""Stable discs: discs that no sequence of moves can flip any more.

The count bounds the final score (the opponent keeps at least its stable discs), which is
what the endgame solver's stability cutoff uses.  The set is a safe under-estimate: edge
discs exactly (from a table of all 3**8 edge configurations), then discs whose four lines
are each full or anchored by a stable neighbour of the same colour.
"""
from libc.stdint cimport uint64_t

cdef uint64_t stable_discs(uint64_t P, uint64_t O) noexcept nogil
