# cython: language_level=3
"""C-level interface of the Board, for the search modules."""
from libc.stdint cimport uint64_t

# 60 placements and at most one pass before each of them bound any game.
cdef enum:
    MAX_PLIES = 128

cdef struct Undo:
    uint64_t flipped
    int move

cdef class Board:
    cdef uint64_t _black, _white
    cdef int _turn
    cdef int _ply
    cdef Undo _stack[MAX_PLIES]

    cdef _set_board_string(self, object text)
    cdef uint64_t _own(self) noexcept
    cdef uint64_t _opp(self) noexcept
    cdef uint64_t _placements(self) noexcept
    cdef bint _must_pass(self) noexcept
    cdef bint _is_legal(self, int move) noexcept
    cdef _push(self, int move)
    cpdef tuple position(self)
