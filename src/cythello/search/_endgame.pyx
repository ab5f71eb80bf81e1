# cython: language_level=3
"""Exact endgame solver: negamax alpha-beta to the end of the game, in C without the GIL.

Scores are final disc differences for the side to move, empties going to the winner (the
convention of the FFO test suite).  Moves are tried fastest-first (fewest replies for the
opponent, corners first) while more than ``SHALLOW`` squares are empty; the last empty
square is played without generating moves.  Positions with more than ``TT_EMPTIES``
empties go through a transposition table (bounds and best move, always replaced), which
the solver keeps between solves: a stored bound stays true whatever window found it.  A search can be bounded by a node count, a
monotonic deadline or a stop flag; it then reports that it was aborted and its score
means nothing.
"""
from libc.stdint cimport uint64_t, int8_t, uint8_t
from libc.stdlib cimport calloc, free

from cythello.core._rules cimport (
    legal_moves, flips, count, first_square, final_disc_difference, PASS_MOVE,
    next_position, Position,
)
from cythello.core._board cimport Board

from cythello.core._platform cimport cy_load_flag, cy_store_flag, cy_monotonic

cdef enum:
    SHALLOW = 6               # at or below this many empties, no move ordering
    TT_EMPTIES = 6            # above this many empties, use the transposition table
    TT_BITS = 20              # 2**20 entries of 24 bytes: 24 MB per solver
    CHECK_EVERY = 4095        # node-count mask between deadline / stop checks

cdef uint64_t CORNERS = 0x8100000000000081ULL
cdef uint64_t QUADRANT[4]
QUADRANT[0] = 0x000000000F0F0F0FULL
QUADRANT[1] = 0x00000000F0F0F0F0ULL
QUADRANT[2] = 0x0F0F0F0F00000000ULL
QUADRANT[3] = 0xF0F0F0F000000000ULL


cdef struct Entry:
    uint64_t P, O
    int8_t lower, upper       # the score lies in [lower, upper]
    uint8_t best              # best move found, or 255


cdef struct Context:
    Entry* table              # NULL: no transposition table
    uint64_t nodes
    uint64_t node_limit       # 0: none
    double deadline           # 0: none
    const int* stop_flag
    bint aborted


cdef inline bint _should_stop(Context* ctx) noexcept nogil:
    if ctx.aborted:
        return True
    if (ctx.nodes & CHECK_EVERY) == 0:
        if ((ctx.node_limit and ctx.nodes >= ctx.node_limit)
                or (ctx.deadline > 0 and cy_monotonic() >= ctx.deadline)
                or (ctx.stop_flag != NULL and cy_load_flag(ctx.stop_flag))):
            ctx.aborted = True
    return ctx.aborted


cdef int _last_square(uint64_t P, uint64_t O, int sq) noexcept nogil:
    """Exact score with exactly one empty square ``sq``, side owning ``P`` to move."""
    cdef uint64_t f = flips(P, O, sq)
    cdef int p = count(P), n
    if f:
        n = count(f)
        return (p + n + 1) - (63 - p - n)            # 2p + 2n + 2 - 64
    f = flips(O, P, sq)
    if f:
        n = count(f)
        return (p - n) - (64 - p + n)                # opponent fills it
    return final_disc_difference(P, O)


cdef inline Entry* _slot(Context* ctx, uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    return &ctx.table[(h ^ (h >> 29)) >> (64 - TT_BITS)]


cdef int _order(uint64_t P, uint64_t O, uint64_t moves, int* squares) noexcept nogil:
    """Fill ``squares`` with the moves, fewest opponent replies first (corners count as
    fewer); returns how many."""
    cdef int keys[64]
    cdef int n = 0, sq, key, i
    cdef uint64_t replies
    cdef Position after
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        after = next_position(P, O, sq)
        replies = legal_moves(after.P, after.O)
        key = count(replies) * 4 + count(replies & CORNERS) * 8
        if (CORNERS >> sq) & 1:
            key -= 6
        i = n
        while i > 0 and keys[i - 1] > key:           # insertion sort: lists are short
            keys[i] = keys[i - 1]
            squares[i] = squares[i - 1]
            i -= 1
        keys[i] = key
        squares[i] = sq
        n += 1
    return n


cdef int _solve(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta,
                bint passed) noexcept nogil:
    ctx.nodes += 1
    if _should_stop(ctx):
        return 0
    cdef uint64_t empty = ~(P | O)
    cdef int empties = count(empty)
    if empties == 0:
        return 2 * count(P) - 64
    if empties == 1:
        return _last_square(P, O, first_square(empty))
    cdef uint64_t moves = legal_moves(P, O), f, odd
    if moves == 0:
        if passed:                                   # neither side can move
            return final_disc_difference(P, O)
        return -_solve(ctx, O, P, -beta, -alpha, True)
    cdef int best = -65, v, sq, i, n, alpha0 = alpha, tt_move = 255
    cdef Position after
    cdef int squares[64]
    cdef Entry* entry = NULL
    if ctx.table != NULL and empties > TT_EMPTIES:
        entry = _slot(ctx, P, O)
        if entry.P == P and entry.O == O:
            if entry.lower >= beta:
                return entry.lower
            if entry.upper <= alpha:
                return entry.upper
            if entry.lower == entry.upper:
                return entry.lower
            if entry.lower > alpha:
                alpha = entry.lower
            if entry.upper < beta:
                beta = entry.upper
            alpha0 = alpha
            tt_move = entry.best
    if empties > SHALLOW:
        n = _order(P, O, moves, squares)
        if tt_move != 255:                        # the stored best move first
            for i in range(1, n):
                if squares[i] == tt_move:
                    while i > 0:
                        squares[i] = squares[i - 1]
                        i -= 1
                    squares[0] = tt_move
                    break
    else:
        # Parity: first the moves in quadrants with an odd number of empties (the side
        # that moves last in a region tends to gain there).
        n = 0
        odd = 0
        for i in range(4):
            if count(empty & QUADRANT[i]) & 1:
                odd |= QUADRANT[i]
        f = moves & odd
        while f:
            squares[n] = first_square(f)
            f &= f - 1
            n += 1
        f = moves & ~odd
        while f:
            squares[n] = first_square(f)
            f &= f - 1
            n += 1
    for i in range(n):
        sq = squares[i]
        after = next_position(P, O, sq)
        v = -_solve(ctx, after.P, after.O, -beta, -alpha, False)
        if v > best:
            best = v
            tt_move = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if entry != NULL and not ctx.aborted:
        if entry.P != P or entry.O != O:
            entry.P = P
            entry.O = O
            entry.lower = -64
            entry.upper = 64
        if best <= alpha0:
            entry.upper = best                    # failed low: an upper bound
        elif best >= beta:
            entry.lower = best                    # failed high: a lower bound
        else:
            entry.lower = entry.upper = best
        entry.best = tt_move
    return best


cdef int _solve_root(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta,
                     int* best_move) noexcept nogil:
    """Like ``_solve`` at the root, and also the move that reaches the score."""
    cdef uint64_t moves = legal_moves(P, O)
    cdef Position after
    cdef int squares[64]
    cdef int n, i, sq, v, best = -65
    best_move[0] = PASS_MOVE
    if moves == 0:
        ctx.nodes += 1
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O)
        return -_solve(ctx, O, P, -beta, -alpha, True)
    n = _order(P, O, moves, squares)
    best_move[0] = squares[0]
    for i in range(n):
        sq = squares[i]
        after = next_position(P, O, sq)
        v = -_solve(ctx, after.P, after.O, -beta, -alpha, False)
        if ctx.aborted:
            break
        if v > best:
            best = v
            best_move[0] = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


cdef class Solver:
    """One exact solve at a time; :meth:`stop` may be called from any thread."""

    cdef int stop_flag
    cdef Entry* table
    cdef readonly unsigned long long nodes

    def __dealloc__(self):
        free(self.table)

    def stop(self):
        """Abort a running solve soon (safe from any thread)."""
        cy_store_flag(&self.stop_flag, 1)

    def solve(self, Board board not None, int alpha=-64, int beta=64, node_limit=None,
              double deadline=0.0):
        """``(score, best move, aborted)`` for the side to move.  The score is exact inside
        ``(alpha, beta)`` and a bound outside it; ``deadline`` is ``time.monotonic()``
        seconds (0: none)."""
        if not -64 <= alpha < beta <= 64:
            raise ValueError(f"need -64 <= alpha < beta <= 64, got ({alpha}, {beta})")
        own, opp = board.position()
        cdef uint64_t P = own, O = opp
        cdef Context ctx
        cdef int best_move = PASS_MOVE, score
        if self.table == NULL and board.empties() > TT_EMPTIES:
            self.table = <Entry*>calloc(1 << TT_BITS, sizeof(Entry))   # NULL: solve without
        ctx.table = self.table
        ctx.nodes = 0
        ctx.node_limit = 0 if node_limit is None else node_limit
        ctx.deadline = deadline
        ctx.stop_flag = &self.stop_flag
        ctx.aborted = False
        cy_store_flag(&self.stop_flag, 0)
        with nogil:
            score = _solve_root(&ctx, P, O, alpha, beta, &best_move)
        self.nodes = ctx.nodes
        return score, best_move, bool(ctx.aborted)

    def move_scores(self, Board board not None, node_limit=None, double deadline=0.0):
        """Exact score of every legal move (``{move: score}``), or None when aborted."""
        scores = {}
        total = 0
        for move in list(board.legal_moves):
            child = board.copy(stack=False)
            child.push(move)
            if child.is_game_over():
                s = child.outcome().score_for(board.turn)
            else:
                v, _, aborted = self.solve(child, -64, 64, node_limit, deadline)
                total += self.nodes
                if aborted:
                    self.nodes = total
                    return None
                s = -v
            scores[move] = s
        self.nodes = total
        return scores
