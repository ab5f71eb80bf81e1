# cython: language_level=3
"""perft: the number of move sequences of a given length, counted in C without the GIL (the
rules' reference check, OEIS A124004)."""
from libc.stdint cimport uint64_t

from cythello.core._rules cimport (
    legal_moves as c_legal_moves, count, first_square, next_position, Position,
)
from cythello.core._board cimport Board


cdef uint64_t _perft(uint64_t P, uint64_t O, int depth) noexcept nogil:
    cdef uint64_t moves = c_legal_moves(P, O), n = 0
    cdef Position after
    if moves == 0:
        if c_legal_moves(O, P) == 0:
            return 0                          # finished game: no children
        return 1 if depth == 1 else _perft(O, P, depth - 1)
    if depth == 1:
        return count(moves)
    while moves:
        after = next_position(P, O, first_square(moves))
        moves &= moves - 1
        n += _perft(after.P, after.O, depth - 1)
    return n


def perft(Board board not None, depth):
    """Number of move sequences of length ``depth`` from ``board`` (a pass is one ply; a
    finished game has no children -- OEIS A124004, Edax's ``count games``).  Runs without
    the GIL."""
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if depth < 0 or depth > 20:
        # perft(15) already takes hours; deeper requests are mistakes, not workloads.
        raise ValueError(f"depth must be 0-20, not {depth}")
    if depth == 0:
        return 1
    cdef uint64_t P = board._own(), O = board._opp(), n
    cdef int d = depth
    with nogil:
        n = _perft(P, O, d)
    return n
