# cython: language_level=3
"""Shallow alpha-beta searches of the evaluation, inline: how the searches that value a
position by more than its static evaluation do it (PUCT's searching evaluator,
``nn/_pattern.pyx``; the UCT search's ``eval_depth``, ``search/_mcts.pyx``).  The deep,
ordered search with a table is ``search/_midgame.pyx``; this one has neither, for the
1-3 plies where they cost more than they save."""
from libc.stdint cimport int16_t, uint64_t

from cythello.core._rules cimport (
    Position, legal_moves, next_position, first_square, final_disc_difference,
)
from cythello.eval._layout cimport EVAL_SCALE, eval_fn

cdef enum:
    SHALLOW_INF = 1 << 20


cdef inline int shallow_score(const int16_t* table, eval_fn evaluate, uint64_t P, uint64_t O,
                              int depth, int alpha, int beta) noexcept nogil:
    """The depth-``depth`` alpha-beta score of the evaluation (in its units) for the side
    to move: a pass uses no depth, a finished game scores its disc difference exactly;
    fail-soft, so with (-SHALLOW_INF, SHALLOW_INF) it is the exact minimax score."""
    cdef uint64_t moves = legal_moves(P, O)
    cdef Position child
    cdef int sq, v, best = -SHALLOW_INF
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        return -shallow_score(table, evaluate, O, P, depth, -beta, -alpha)
    if depth == 0:
        return evaluate(table, P, O)
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        child = next_position(P, O, sq)
        v = -shallow_score(table, evaluate, child.P, child.O, depth - 1, -beta, -alpha)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best
