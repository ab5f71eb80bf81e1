# cython: language_level=3
"""The 8 symmetries of the board as bit permutations (delta swaps, no loops over squares),
as inline C for the Board, the evaluation and the training tools."""
from libc.stdint cimport uint64_t
from cythello.core._platform cimport cy_bswap64


cdef inline uint64_t flip_rows(uint64_t b) noexcept nogil:
    """Row 1 <-> row 8 (a mirror in the horizontal midline): a byte swap."""
    return cy_bswap64(b)


cdef inline uint64_t flip_columns(uint64_t b) noexcept nogil:
    """Column a <-> column h."""
    b = ((b >> 1) & 0x5555555555555555ULL) | ((b & 0x5555555555555555ULL) << 1)
    b = ((b >> 2) & 0x3333333333333333ULL) | ((b & 0x3333333333333333ULL) << 2)
    return ((b >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((b & 0x0F0F0F0F0F0F0F0FULL) << 4)


cdef inline uint64_t transpose(uint64_t b) noexcept nogil:
    """Mirror in the a1-h8 diagonal: square (row, col) -> (col, row)."""
    cdef uint64_t t
    t = 0x0F0F0F0F00000000ULL & (b ^ (b << 28))
    b ^= t ^ (t >> 28)
    t = 0x3333000033330000ULL & (b ^ (b << 14))
    b ^= t ^ (t >> 14)
    t = 0x5500550055005500ULL & (b ^ (b << 7))
    b ^= t ^ (t >> 7)
    return b


cdef inline uint64_t symmetry(uint64_t b, int k) noexcept nogil:
    """Symmetry ``k`` (0-7): bit 0 flips columns, bit 1 flips rows, bit 2 transposes
    (applied in that order); 0 is the identity."""
    if k & 1:
        b = flip_columns(b)
    if k & 2:
        b = flip_rows(b)
    if k & 4:
        b = transpose(b)
    return b


cdef inline void canonical(uint64_t P, uint64_t O, uint64_t* best_p, uint64_t* best_o,
                           int* best_k) noexcept nogil:
    """The position unique up to the 8 symmetries: the smallest ``(P, O)`` pair of its
    transforms, and the symmetry ``k`` that makes it (the book's keys, the games index)."""
    cdef uint64_t p, o
    cdef int k
    best_p[0], best_o[0], best_k[0] = P, O, 0
    for k in range(1, 8):
        p = symmetry(P, k)
        o = symmetry(O, k)
        if p < best_p[0] or (p == best_p[0] and o < best_o[0]):
            best_p[0], best_o[0], best_k[0] = p, o, k
