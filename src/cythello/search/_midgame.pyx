# cython: language_level=3
"""Fixed-depth alpha-beta with the pattern evaluation at the leaves, in C without the GIL.

It labels training positions (a shallow search into the stages already learned, Buro's
bootstrapping for Logistello) and gives the evaluation's view of a position a few plies
deep.  Scores are in 1/EVAL_SCALE disc for the side to move; finished games score exactly
(empties to the winner).  A pass does not use up depth, so the leaves of a depth-d search
from a position with e empties all have e - d empties (or the game is over).
"""
import numpy as np

from libc.stdint cimport uint64_t, int16_t

from cythello.core._rules cimport (
    legal_moves, flips, count, first_square, final_disc_difference, PASS_MOVE,
)
from cythello.core._board cimport Board
from cythello.eval._layout cimport EVAL_SCALE, eval_fn
from cythello.eval._patterns cimport PatternWeights, evaluator_function
from cythello.eval._patterns import position_arrays

cdef enum:
    INF = 1 << 20
    MAX_DEPTH = 20

cdef uint64_t CORNERS = 0x8100000000000081ULL


cdef struct Context:
    const int16_t* weights
    eval_fn evaluate
    unsigned long long nodes


cdef int _leaf(Context* ctx, uint64_t P, uint64_t O) noexcept nogil:
    if P == 0 or O == 0 or (P | O) == 0xFFFFFFFFFFFFFFFFULL:
        return final_disc_difference(P, O) * EVAL_SCALE
    return ctx.evaluate(ctx.weights, P, O)


cdef int _alphabeta(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta, int depth,
                    int* best_move) noexcept nogil:
    cdef uint64_t moves, f, replies
    cdef int n = 0, i, j, v, best = -INF, sq, key, child_move
    cdef int squares[64]
    cdef int keys[64]
    ctx.nodes += 1
    best_move[0] = PASS_MOVE
    if depth == 0:
        return _leaf(ctx, P, O)
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        return -_alphabeta(ctx, O, P, -beta, -alpha, depth, &child_move)
    # Order: corners and moves that leave the opponent few replies first (the cheap
    # fastest-first order; the tree is shallow).
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        key = 0
        if depth > 1:
            f = flips(P, O, sq)
            replies = legal_moves(O ^ f, P | f | ((<uint64_t>1) << sq))
            key = count(replies) + count(replies & CORNERS)
        if (CORNERS >> sq) & 1:
            key -= 4
        j = n
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            squares[j] = squares[j - 1]
            j -= 1
        keys[j] = key
        squares[j] = sq
        n += 1
    for i in range(n):
        sq = squares[i]
        f = flips(P, O, sq)
        v = -_alphabeta(ctx, O ^ f, P | f | ((<uint64_t>1) << sq), -beta, -alpha, depth - 1,
                        &child_move)
        if v > best:
            best = v
            best_move[0] = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


cdef int _check_depth(object depth) except -1:
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 0-{MAX_DEPTH}, not {depth}")
    return depth


def search(Board board not None, depth, PatternWeights weights not None):
    """``(score in discs, best move, nodes)`` of a depth-``depth`` alpha-beta search with
    the evaluation at the leaves, for the side to move (best move PASS when it must pass
    or the game is over)."""
    cdef int d = _check_depth(depth), move = PASS_MOVE, score
    own, opp = board.position()
    cdef uint64_t P = own, O = opp
    cdef Context ctx
    ctx.weights = weights.table
    ctx.evaluate = evaluator_function()
    ctx.nodes = 0
    with nogil:
        score = _alphabeta(&ctx, P, O, -INF, INF, d, &move)
    return score / <double>EVAL_SCALE, move, ctx.nodes


def search_many(own, opp, depth, PatternWeights weights not None):
    """The depth-``depth`` search score (in discs) of many positions (uint64 arrays of the
    side to move's and the opponent's discs), without the GIL."""
    own, opp = position_arrays(own, opp)
    cdef const uint64_t[::1] P = own
    cdef const uint64_t[::1] O = opp
    cdef int d = _check_depth(depth), move
    out = np.empty(P.shape[0], dtype=np.float64)
    cdef double[::1] res = out
    cdef Py_ssize_t i, n = P.shape[0]
    cdef Context ctx
    ctx.weights = weights.table
    ctx.evaluate = evaluator_function()
    ctx.nodes = 0
    with nogil:
        for i in range(n):
            res[i] = _alphabeta(&ctx, P[i], O[i], -INF, INF, d, &move) / <double>EVAL_SCALE
    return out
