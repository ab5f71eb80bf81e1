# cython: language_level=3
"""Othello rules on bitboards, as inline C for every module that cimports them.

A position is two 64-bit masks: ``P`` the discs of the side to move, ``O`` the opponent's.
Bit i is square i (a1 = 0, h8 = 63, index = row*8 + col).  Everything here is
``noexcept nogil`` so the search and rollout loops never touch a Python object.
"""
from libc.stdint cimport uint64_t
from cythello.core._platform cimport cy_popcount, cy_ctz, cy_monotonic

cdef extern from "cy_rays.h" nogil:
    # Files b..g: a horizontal or diagonal run may not wrap from one row into the next.
    const uint64_t INNER_FILES "CY_INNER_FILES"
    const uint64_t CY_CORNER_ZONE[4]      # X- and C-squares of a1, h1, a8, h8

# The move generator (cy_moves.h: the four lines at once in the x86-64-v3 build).
cdef extern from "cy_moves.h" nogil:
    uint64_t cy_legal_moves(uint64_t P, uint64_t O)
    uint64_t cy_flips(uint64_t P, uint64_t O, int sq)
    const int FLIPS_VECTOR "CY_FLIPS_VECTOR"     # 1: the vector spelling (cheap flips)

cdef enum:
    PASS_MOVE = 64          # the pass, a move of its own
    NO_MOVE = 65


cdef inline uint64_t legal_moves(uint64_t P, uint64_t O) noexcept nogil:
    """Mask of the squares where the side owning ``P`` may place a disc."""
    return cy_legal_moves(P, O)


cdef inline uint64_t flips(uint64_t P, uint64_t O, int sq) noexcept nogil:
    """Discs of ``O`` turned over when the side owning ``P`` plays on empty ``sq``."""
    return cy_flips(P, O, sq)


cdef inline int count(uint64_t bits) noexcept nogil:
    return cy_popcount(bits)


cdef inline int first_square(uint64_t bits) noexcept nogil:
    return cy_ctz(bits)


cdef inline bint is_game_over(uint64_t P, uint64_t O) noexcept nogil:
    return legal_moves(P, O) == 0 and legal_moves(O, P) == 0


cdef inline int final_disc_difference(uint64_t P, uint64_t O) noexcept nogil:
    """Disc difference of a finished game for the side owning ``P``; empties go to the
    winner (the World Othello Federation rule)."""
    cdef int p = cy_popcount(P), o = cy_popcount(O)
    cdef int empties = 64 - p - o
    if p > o:
        return p - o + empties
    if o > p:
        return p - o - empties
    return 0


cdef inline uint64_t corner_danger(uint64_t empty) noexcept nogil:
    """The X- and C-squares whose corner is still empty: where a disc hands the corner to
    the opponent (the playout policy and the search's prior both avoid them)."""
    cdef uint64_t danger = 0
    if empty & 1:
        danger |= CY_CORNER_ZONE[0]
    if (empty >> 7) & 1:
        danger |= CY_CORNER_ZONE[1]
    if (empty >> 56) & 1:
        danger |= CY_CORNER_ZONE[2]
    if (empty >> 63) & 1:
        danger |= CY_CORNER_ZONE[3]
    return danger


cdef struct Position:
    uint64_t P        # discs of the side to move
    uint64_t O        # discs of the opponent


cdef inline Position next_position(uint64_t P, uint64_t O, int sq) noexcept nogil:
    """The position after the side owning ``P`` plays ``sq`` (not a pass): the other side
    is to move, so the opponent's discs minus the flipped ones come first."""
    cdef uint64_t f = flips(P, O, sq)
    cdef Position after
    after.P = O & ~f
    after.O = P | f | ((<uint64_t>1) << sq)
    return after


cdef inline void play(Position* pos, int sq) noexcept nogil:
    """Play ``sq`` (or PASS_MOVE) in place; afterwards the other side is to move."""
    cdef uint64_t mover
    if sq == PASS_MOVE:
        mover = pos.P
        pos.P = pos.O
        pos.O = mover
    else:
        pos[0] = next_position(pos.P, pos.O, sq)
