# cython: language_level=3
"""The network input layout, as inline C: one home for how a position becomes planes.

A position is two ``(8, 8)`` float planes, the side to move's discs first, square i at
``[i // 8, i % 8]`` (``Board.planes``), and a legal-move mask of 65 entries, index 64 the
pass (set only when the side to move has no placement).  ``VectorOthello`` and the PUCT
search write their batches with these, so environments and evaluators agree.
"""
from libc.stdint cimport uint8_t, uint64_t
from cythello.core._rules cimport legal_moves


cdef inline void write_planes(uint64_t P, uint64_t O, float* out) noexcept nogil:
    """``out[0:64]`` the bits of ``P``, ``out[64:128]`` those of ``O``, as 0.0/1.0."""
    cdef int k
    for k in range(64):
        out[k] = <float>((P >> k) & 1)
        out[64 + k] = <float>((O >> k) & 1)


cdef inline void write_legal(uint64_t P, uint64_t O, uint8_t* out) noexcept nogil:
    """``out[0:65]``: 1 where the side owning ``P`` may move (64: the forced pass)."""
    cdef uint64_t moves = legal_moves(P, O)
    cdef int k
    for k in range(64):
        out[k] = (moves >> k) & 1
    out[64] = moves == 0


cdef inline void read_planes(const float* planes, uint64_t* P, uint64_t* O) noexcept nogil:
    """The inverse of :func:`write_planes` (a square is set where its plane is above 0.5)."""
    cdef int k
    P[0] = 0
    O[0] = 0
    for k in range(64):
        if planes[k] > 0.5:
            P[0] |= (<uint64_t>1) << k
        if planes[64 + k] > 0.5:
            O[0] |= (<uint64_t>1) << k
