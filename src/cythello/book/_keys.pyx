# cython: language_level=3
"""Book keys, in C: a position unique up to the 8 board symmetries is the smallest
(own, opponent) pair of its transforms, and the book only ever stores positions in which
the side to move has a move (a forced pass is played first).  These are the two things
done for every lookup and every child while a book is built or played from."""
from libc.stdint cimport uint64_t

from cythello.core._rules cimport (
    legal_moves, first_square, final_disc_difference, next_position, Position,
)
from cythello.core._symmetry cimport canonical as _canonical


def canonical(uint64_t own, uint64_t opp):
    """``(own, opp, k)``: the smallest of the position's 8 transforms and the symmetry
    ``k`` that makes it (``Board.transform(k)`` of the position)."""
    cdef uint64_t p, o
    cdef int k
    _canonical(own, opp, &p, &o, &k)
    return p, o, k


def children(uint64_t own, uint64_t opp):
    """The legal moves of a position (the side owning ``own`` to move) as book keys: a
    list of ``(move, child_own, child_opp, sign, exact)``, by square.  ``sign`` is -1 when
    the opponent is to move in the child (the move's value is minus the child's), +1 when
    the opponent must pass and the mover moves again (the child is the position after the
    pass), 0 when the game is over (``exact``: the final disc difference for the mover,
    empties to the winner; the child key is 0, 0)."""
    cdef uint64_t moves = legal_moves(own, opp), p, o
    cdef int sq, k
    cdef Position after
    out = []
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        after = next_position(own, opp, sq)
        if legal_moves(after.P, after.O):
            _canonical(after.P, after.O, &p, &o, &k)
            out.append((sq, p, o, -1, 0))
        elif legal_moves(after.O, after.P):
            _canonical(after.O, after.P, &p, &o, &k)
            out.append((sq, p, o, 1, 0))
        else:
            out.append((sq, 0, 0, 0, final_disc_difference(after.O, after.P)))
    return out
