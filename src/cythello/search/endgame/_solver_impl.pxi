# The solver's search, included by two modules: ``_solver`` (the portable build, which
# holds the Python interface) and ``_solver_v3`` (the same code built for x86-64-v3,
# loaded only on CPUs that have AVX2, BMI1/2 and POPCNT; see cythello.core._cpu).
# ``_run`` is the entry point (handed to ``_solver`` by a capsule); both builds search the
# same tree node for node.  The transposition table and the parallel search are in their
# own files, included here.
from libc.stdint cimport uint64_t, int64_t, int8_t, int16_t, uint8_t, uint16_t, INT64_MIN
from libc.stdlib cimport calloc, free
from cpython.pycapsule cimport PyCapsule_New

from cythello.core._rules cimport (
    legal_moves, flips, count, first_square, final_disc_difference, PASS_MOVE, FLIPS_VECTOR,
)
from cythello.core._stability cimport stable_discs
from cythello.core._platform cimport (
    cy_prefetch, cy_msb, cy_huge_alloc, cy_huge_aligned, cy_huge_free,
    cy_load_flag, cy_monotonic, cy_mutex, cy_cond, cy_thread, cy_mutex_init,
    cy_mutex_destroy, cy_mutex_lock, cy_mutex_unlock, cy_cond_init, cy_cond_destroy,
    cy_cond_wait, cy_cond_broadcast, cy_thread_create, cy_thread_join, cy_atomic_add64,
)
from cythello.eval._layout cimport eval_fn, search_fn, children_fn, EVAL_SCALE
from libc.math cimport ceil, exp, floor

cdef enum:
    INF = 127                 # above every score
    VALUE_INF = 1 << 20       # above every evaluation
    # The settings' measurements: docs/results/benchmarks.md, "The exact solver's
    # settings, measured".
    # At or above TT_EMPTIES: transposition table and fastest-first ordering (below, the
    # nodes are too cheap to pay for either).
    TT_EMPTIES = 7
    # From TT_EMPTIES to EVAL_SORT_EMPTIES - 1, a move that leaves the opponent at most
    # FORCING replies (corners twice) is searched as soon as the ordering meets it, before
    # the others are ordered (as Egaroucid does): it refutes the node often enough that
    # ordering the rest is wasted.
    FORCING = 1
    # Below EVAL_SORT_EMPTIES a move on an isolated empty (parity: the side that plays
    # there moves last in its region) gains 3/8 of a reply in the order, as Egaroucid
    # weighs odd quadrants near a reply at 7-10 empties.
    ISOLATED_BONUS = 96
    # At or above: the opponent's potential mobility (empty squares next to the mover's
    # discs) joins the order; below, it costs more than it saves (Egaroucid orders 7-10
    # empties by replies and parity alone).
    POTENTIAL_EMPTIES = 11
    # A disc the move makes safe at the corners weighs 1/8 of a reply in the order.
    CORNER_SAFE_WEIGHT = 32
    # Evaluation searches (the ordering's look-ahead, the selective cuts) this shallow or
    # shallower run in the evaluator's own search, which follows the pattern indices from
    # move to move instead of reading every leaf from scratch (it tries the moves in
    # square order); deeper ones order their moves by fewest replies.
    EVAL_TAIL_DEPTH = 2
    EVAL_SORT_EMPTIES = 14    # at or above: the evaluation (a shallow search) joins the order
    SORT_WINDOW = 8           # ... precise only down to this many discs below alpha
    SPLIT_EMPTIES = 12        # at or above: idle threads may share a node's moves
    # TT_EMPTIES to NEAR_MAX_EMPTIES: each thread's own table of 2**NEAR_BITS buckets (1 MB,
    # which stays in a core's second-level cache beside the search's other data; the
    # shared 64 MB one does not).
    NEAR_MAX_EMPTIES = 12
    NEAR_BITS = 14
    MAX_OPEN = 512            # split points open at once
    CHECK_EVERY = 4096        # nodes between deadline / stop checks
    DEFAULT_TT_BITS = 20      # 2**20 buckets of 64 bytes: 64 MB
    # A selective pass cuts null-window nodes from PROBCUT_MIN_EMPTIES empties, predicting
    # their score by an evaluation search of PROBCUT_DEPTH_MIN plies, one more every
    # PROBCUT_EMPTIES_PER_PLY empties (research/endgame_probcut: cost against accuracy).
    PROBCUT_MIN_EMPTIES = 10
    PROBCUT_DEPTH_MIN = 1
    PROBCUT_EMPTIES_PER_PLY = 3
    EXACT_WIDTH = 255         # the certainty of an exact search's table entries
    FORCED_KEY = -(1 << 30)   # _key: a forcing move, searched before the rest is ordered

cdef uint64_t CORNERS = 0x8100000000000081ULL

# -- tables ----------------------------------------------------------------------------------

cdef uint8_t COUNT_FLIP[8][256]   # 2 x discs flipped on an 8-square line by a disc at x
cdef uint64_t DIAG9[64]           # the a1-h8 diagonal through each square
cdef uint64_t DIAG7[64]           # the a8-h1 diagonal through each square
cdef uint64_t NEIGHBOUR[64]       # the squares around each square
cdef int STABILITY_MIN[65]        # try the stability cutoff only when alpha reaches this
# The order of the squares at shallow depth (_nws_shallow): corners, edges away from the
# corners, the centre, the rest, C-squares, X-squares, each class in square order.  A
# square's bit in that order (RANK_BIT), and the square of each rank (RANK_SQUARE): a
# node's moves become one word whose set bits run in the order they are tried.
cdef uint64_t RANK_BIT[64]
cdef int RANK_SQUARE[64]


cdef void _init_tables() noexcept:
    cdef int x, line, y, run, sq, r, c, dr, dc, k
    cdef uint64_t m
    for x in range(8):
        for line in range(256):
            run = 0
            y = x + 1
            while y < 8 and not (line >> y) & 1:
                y += 1
            if y < 8:
                run += y - x - 1
            y = x - 1
            while y >= 0 and not (line >> y) & 1:
                y -= 1
            if y >= 0:
                run += x - y - 1
            COUNT_FLIP[x][line] = 2 * run
    for sq in range(64):
        r = sq // 8
        c = sq % 8
        DIAG9[sq] = DIAG7[sq] = NEIGHBOUR[sq] = 0
        for k in range(-7, 8):
            if 0 <= r + k < 8 and 0 <= c + k < 8:
                DIAG9[sq] |= (<uint64_t>1) << ((r + k) * 8 + c + k)
            if 0 <= r + k < 8 and 0 <= c - k < 8:
                DIAG7[sq] |= (<uint64_t>1) << ((r + k) * 8 + c - k)
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                if (dr or dc) and 0 <= r + dr < 8 and 0 <= c + dc < 8:
                    NEIGHBOUR[sq] |= (<uint64_t>1) << ((r + dr) * 8 + c + dc)
    # Edax's thresholds less 4: below them stable discs are too few to refute anything,
    # and between them and Edax's the cutoffs found pay for the tests.
    cdef int thresholds[9]
    thresholds[:] = [6, 8, 10, 12, 14, 16, 20, 22, 24]
    for x in range(65):
        if x < 4:
            STABILITY_MIN[x] = 99
        elif x <= 12:
            STABILITY_MIN[x] = thresholds[x - 4] - 4
        else:
            STABILITY_MIN[x] = min(64, 20 + 2 * (x - 12))
    cdef uint64_t classes[6]
    classes[0] = CORNERS
    classes[1] = 0x3C0081818181003CULL           # edges two or more away from a corner
    classes[2] = 0x00003C3C3C3C0000ULL           # the centre
    classes[5] = 0x0042000000004200ULL           # X-squares
    classes[4] = 0x4281000000008142ULL           # C-squares
    classes[3] = ~(classes[0] | classes[1] | classes[2] | classes[4] | classes[5])
    r = 0
    for k in range(6):
        for sq in range(64):
            if (classes[k] >> sq) & 1:
                RANK_BIT[sq] = (<uint64_t>1) << r
                RANK_SQUARE[r] = sq
                r += 1

_init_tables()


# -- the transposition table (_solver_table.pxi) and the search context ------------------

include "_solver_table.pxi"
include "_solver_probcut.pxi"


cdef struct SplitPoint:
    # A node whose remaining moves several threads search (young brothers wait: the first
    # move is always searched alone first).  Guarded by Workers.lock.
    uint64_t P, O
    int alpha, empties
    int n, next               # moves, and the next one nobody has taken
    int squares[64]
    uint64_t flipped[64]
    int best, best_move
    volatile int cutoff       # a move scored above alpha: the others can stop
    int workers               # other threads searching one of its moves now
    SplitPoint* parent        # the split point above it, for the cut-off checks

cdef struct Workers:
    cy_mutex lock
    cy_cond wake              # work was published, or the solve ends
    cy_cond done              # a thread finished a move of some split point, or one
                              # was opened (for a master that waits to help below it)
    SplitPoint* open[MAX_OPEN]
    int n_open
    volatile int idle         # threads waiting for work: helpers, and masters waiting
                              # at their split points (which take work opened below)
    volatile int quit
    volatile int abort        # the solve is aborted (time, nodes, stop): all unwind
    uint64_t nodes            # the helpers' nodes, added as they quit
    int64_t counted           # every thread's nodes as reported at its checks: a node
                              # limit is the solve's, not each thread's

cdef struct Context:
    Table* table
    Table* near               # this thread's table near the leaves (NULL: none); the
                              # helpers of _run take the ones after it, one each
    const int16_t* eval_weights   # NULL: order by mobility alone
    eval_fn evaluate
    search_fn eval_tail       # the evaluator's search, for EVAL_TAIL_DEPTH and less
    children_fn eval_children # the same from each child of a node
    uint64_t nodes
    uint64_t node_limit       # 0: none (with threads: all threads' nodes together)
    uint64_t reported         # this thread's nodes already added to workers.counted
    uint64_t next_check       # the node count at which to look at the clock and the flags
    double deadline           # 0: none
    const int* stop_flag
    bint aborted              # unwind: the solve is aborted, or a split point above was cut
    Workers* workers          # NULL: one thread
    SplitPoint* sp            # the innermost split point this thread works under
    # A selective pass (Multi-ProbCut at the null-window nodes, _probcut): its t in
    # standard deviations (0: the exact search) and its certainty, t in tenths (exact:
    # EXACT_WIDTH), which the table's entries carry: a search takes bounds only from
    # searches at least as sure as itself.
    double probcut
    int certainty


cdef inline Table* _tt(Context* ctx, int empties) noexcept nogil:
    """The table for nodes with ``empties`` empty squares (NULL: none)."""
    if empties <= NEAR_MAX_EMPTIES and ctx.near != NULL:
        return ctx.near
    return ctx.table


cdef inline bint _cut_above(SplitPoint* sp) noexcept nogil:
    while sp != NULL:
        if sp.cutoff:
            return True
        sp = sp.parent
    return False


cdef inline bint _should_stop(Context* ctx) noexcept nogil:
    cdef uint64_t total
    cdef int64_t delta
    if ctx.aborted:
        return True
    if ctx.nodes >= ctx.next_check:
        # By count, not by a mask of it: the evaluation searches of the ordering and of
        # the selective cuts add many nodes at once, and would step over the mask's hits.
        ctx.next_check = ctx.nodes + CHECK_EVERY
        total = ctx.nodes
        if ctx.workers != NULL:
            delta = <int64_t>(ctx.nodes - ctx.reported)
            ctx.reported = ctx.nodes
            total = <uint64_t>(cy_atomic_add64(&ctx.workers.counted, delta) + delta)
        if ((ctx.node_limit and total >= ctx.node_limit)
                or (ctx.deadline > 0 and cy_monotonic() >= ctx.deadline)
                or (ctx.stop_flag != NULL and cy_load_flag(ctx.stop_flag))):
            ctx.aborted = True
            if ctx.workers != NULL:
                ctx.workers.abort = 1
        elif ctx.workers != NULL and (ctx.workers.abort or _cut_above(ctx.sp)):
            ctx.aborted = True
    return ctx.aborted


# -- parallel search (_solver_parallel.pxi) --------------------------------------------------

include "_solver_parallel.pxi"


# -- the last empties --------------------------------------------------------------------------

cdef inline int _last_flips(uint64_t P, int sq) noexcept nogil:
    """2 x the discs a disc on ``sq`` flips when every other square is filled and ``P``
    holds the mover's discs (so all the rest are the opponent's)."""
    cdef int c = sq & 7
    return (COUNT_FLIP[c][(P >> (sq & 56)) & 0xFF]
            + COUNT_FLIP[sq >> 3][(((P >> c) & 0x0101010101010101ULL)
                                   * 0x0102040810204080ULL) >> 56]
            + COUNT_FLIP[c][((P & DIAG9[sq]) * 0x0101010101010101ULL) >> 56]
            + COUNT_FLIP[c][((P & DIAG7[sq]) * 0x0101010101010101ULL) >> 56])


cdef inline int _solve_1(uint64_t P, int sq) noexcept nogil:
    """Exact score with one empty square ``sq``; ``P`` the discs of the side to move."""
    cdef int p2 = 2 * count(P)
    cdef int n = _last_flips(P, sq)
    if n:
        return p2 + n - 62                        # the mover fills it
    n = _last_flips(~P & ~((<uint64_t>1) << sq), sq)
    if n:
        return p2 - n - 64                        # the mover passes, the opponent fills it
    return p2 - 62 if p2 > 63 else p2 - 64        # nobody can: the empty goes to the winner


cdef int _solve_2(Context* ctx, uint64_t P, uint64_t O, int alpha, int x1,
                  int x2) noexcept nogil:
    """Null-window test with two empties: a score above ``alpha``, or one at or below it."""
    cdef uint64_t f
    cdef int best = -INF, v
    ctx.nodes += 1
    # A square with no opponent disc next to it flips nothing.  The portable build tests
    # that before it flips; the vector build's flips cost less than the test guessed wrong.
    if FLIPS_VECTOR or NEIGHBOUR[x1] & O:
        f = flips(P, O, x1)
        if f:
            best = -_solve_1(O ^ f, x2)
            if best > alpha:
                return best
    if FLIPS_VECTOR or NEIGHBOUR[x2] & O:
        f = flips(P, O, x2)
        if f:
            v = -_solve_1(O ^ f, x1)
            if v > best:
                best = v
    if best != -INF:
        return best
    best = INF                                   # the mover passes
    if FLIPS_VECTOR or NEIGHBOUR[x1] & P:
        f = flips(O, P, x1)
        if f:
            best = _solve_1(P ^ f, x2)
            if best <= alpha:
                return best
    if FLIPS_VECTOR or NEIGHBOUR[x2] & P:
        f = flips(O, P, x2)
        if f:
            v = _solve_1(P ^ f, x1)
            if v < best:
                best = v
    if best != INF:
        return best
    return final_disc_difference(P, O)


cdef int _solve_3(Context* ctx, uint64_t P, uint64_t O, int alpha, int x1, int x2,
                  int x3) noexcept nogil:
    cdef uint64_t f
    cdef int best = -INF, v
    cdef uint64_t e3 = ((<uint64_t>1) << x1) | ((<uint64_t>1) << x2) | ((<uint64_t>1) << x3)
    ctx.nodes += 1
    # An isolated empty first (parity).
    if NEIGHBOUR[x1] & e3:
        if not (NEIGHBOUR[x2] & e3):
            x1, x2 = x2, x1
        elif not (NEIGHBOUR[x3] & e3):
            x1, x2, x3 = x3, x1, x2
    if NEIGHBOUR[x1] & O:
        f = flips(P, O, x1)
        if f:
            best = -_solve_2(ctx, O ^ f, P | f | ((<uint64_t>1) << x1), -alpha - 1, x2, x3)
            if best > alpha:
                return best
    if NEIGHBOUR[x2] & O:
        f = flips(P, O, x2)
        if f:
            v = -_solve_2(ctx, O ^ f, P | f | ((<uint64_t>1) << x2), -alpha - 1, x1, x3)
            if v > best:
                best = v
                if best > alpha:
                    return best
    if NEIGHBOUR[x3] & O:
        f = flips(P, O, x3)
        if f:
            v = -_solve_2(ctx, O ^ f, P | f | ((<uint64_t>1) << x3), -alpha - 1, x1, x2)
            if v > best:
                best = v
    if best != -INF:
        return best
    best = INF                                   # the mover passes
    if NEIGHBOUR[x1] & P:
        f = flips(O, P, x1)
        if f:
            best = _solve_2(ctx, P ^ f, O | f | ((<uint64_t>1) << x1), alpha, x2, x3)
            if best <= alpha:
                return best
    if NEIGHBOUR[x2] & P:
        f = flips(O, P, x2)
        if f:
            v = _solve_2(ctx, P ^ f, O | f | ((<uint64_t>1) << x2), alpha, x1, x3)
            if v < best:
                best = v
                if best <= alpha:
                    return best
    if NEIGHBOUR[x3] & P:
        f = flips(O, P, x3)
        if f:
            v = _solve_2(ctx, P ^ f, O | f | ((<uint64_t>1) << x3), alpha, x1, x2)
            if v < best:
                best = v
    if best != INF:
        return best
    return final_disc_difference(P, O)


cdef inline uint64_t _around(uint64_t b) noexcept nogil:
    """The squares next to the discs of ``b`` (in the 8 directions)."""
    cdef uint64_t h = ((b >> 1) & 0x7F7F7F7F7F7F7F7FULL) | ((b << 1) & 0xFEFEFEFEFEFEFEFEULL)
    return h | (b >> 8) | (b << 8) | (h >> 8) | (h << 8)


cdef inline uint64_t _isolated(uint64_t empty) noexcept nogil:
    """The ``empty`` squares with no empty neighbour: regions of one square, where the
    side that fills it moves last (parity, found as Egaroucid does near the leaves; a
    closer guess than quadrants with an odd number of empties)."""
    return empty & ~_around(empty)


cdef inline void _isolated_first(uint64_t empty, int* sq, int n) noexcept nogil:
    """The ``n`` squares of ``empty`` in ``sq``: isolated empties first, each part in
    square order.  A fixed number of steps, each taking the next square of the isolated
    part while it lasts (fewer branches to guess than sorting the squares)."""
    cdef uint64_t first = _isolated(empty), rest = empty & ~first, src, low
    cdef int i
    for i in range(n):
        src = first if first else rest
        low = src & (0 - src)
        sq[i] = first_square(src)
        # The square taken is in one of the two parts: clearing it from both is the same.
        first &= ~low
        rest &= ~low


cdef inline int _stability_cutoff(uint64_t P, uint64_t O, int alpha,
                                  int empties) noexcept nogil:
    """An upper bound of the mover's final score (the opponent keeps its stable discs)
    when it is at or below ``alpha``, found only where alpha reaches STABILITY_MIN;
    else INF (no cutoff)."""
    cdef int upper
    # The opponent's stable discs are some of its discs: too few discs, no cutoff.
    if alpha >= STABILITY_MIN[empties] and 2 * count(O) >= 64 - alpha:
        upper = 64 - 2 * count(stable_discs(O, P))
        if upper <= alpha:
            return upper
    return INF


cdef int _solve_4(Context* ctx, uint64_t P, uint64_t O, int alpha) noexcept nogil:
    cdef uint64_t empty = ~(P | O), f
    cdef int sq[4]
    cdef int i, best = -INF, v
    ctx.nodes += 1
    # Worth its cost from 4 empties (at 3 the subtree is cheaper than the test).
    v = _stability_cutoff(P, O, alpha, 4)
    if v != INF:
        return v
    _isolated_first(empty, sq, 4)
    for i in range(4):
        if NEIGHBOUR[sq[i]] & O:
            f = flips(P, O, sq[i])
            if f:
                v = -_solve_3(ctx, O ^ f, P | f | ((<uint64_t>1) << sq[i]), -alpha - 1,
                              sq[(i + 1) & 3] if i == 0 else sq[0],
                              sq[2] if i <= 1 else sq[1],
                              sq[3] if i <= 2 else sq[2])
                if v > best:
                    best = v
                    if best > alpha:
                        return best
    if best != -INF:
        return best
    best = INF                                   # the mover passes
    for i in range(4):
        if NEIGHBOUR[sq[i]] & P:
            f = flips(O, P, sq[i])
            if f:
                v = _solve_3(ctx, P ^ f, O | f | ((<uint64_t>1) << sq[i]), alpha,
                             sq[(i + 1) & 3] if i == 0 else sq[0],
                             sq[2] if i <= 1 else sq[1],
                             sq[3] if i <= 2 else sq[2])
                if v < best:
                    best = v
                    if best <= alpha:
                        return best
    if best != INF:
        return best
    return final_disc_difference(P, O)


# -- null-window search ----------------------------------------------------------------------

cdef int _nws(Context* ctx, uint64_t P, uint64_t O, int alpha, int empties) noexcept nogil:
    """Null-window test at any depth: a score above ``alpha`` (a lower bound), or one at or
    below it (an upper bound)."""
    if empties >= TT_EMPTIES:
        return _nws_table(ctx, P, O, alpha, empties)
    if empties >= 5:
        return _nws_shallow(ctx, P, O, alpha, empties)
    cdef uint64_t e = ~(P | O)
    cdef int a, b
    if empties == 4:
        return _solve_4(ctx, P, O, alpha)
    if empties == 3:
        a = first_square(e)
        e &= e - 1
        b = first_square(e)
        e &= e - 1
        return _solve_3(ctx, P, O, alpha, a, b, first_square(e))
    if empties == 2:
        a = first_square(e)
        e &= e - 1
        return _solve_2(ctx, P, O, alpha, a, first_square(e))
    ctx.nodes += 1
    if empties == 1:
        return _solve_1(P, first_square(e))
    return final_disc_difference(P, O)


cdef int _nws_shallow(Context* ctx, uint64_t P, uint64_t O, int alpha,
                      int empties) noexcept nogil:
    """5 to TT_EMPTIES - 1 empties, without the table: the moves on isolated empties first,
    each half by square type (corners first, X-squares last)."""
    cdef uint64_t moves, isolated, part, f
    cdef uint64_t ranked[2]
    cdef int v, sq, half, best = -INF
    ctx.nodes += 1
    if _should_stop(ctx):
        return 0
    v = _stability_cutoff(P, O, alpha, empties)
    if v != INF:
        return v
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O)
        return -_nws_shallow(ctx, O, P, -alpha - 1, empties)
    # The moves as two words of ranks (RANK_BIT): those on isolated empties, the rest.
    isolated = _isolated(~(P | O))
    ranked[0] = ranked[1] = 0
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        ranked[((isolated >> sq) & 1) ^ 1] |= RANK_BIT[sq]
    for half in range(2):
        part = ranked[half]
        while part:
            sq = RANK_SQUARE[first_square(part)]
            part &= part - 1
            f = flips(P, O, sq)
            # The children directly, not through _nws's dispatch: most of the search's
            # nodes are here.
            if empties > 5:
                v = -_nws_shallow(ctx, O ^ f, P | f | ((<uint64_t>1) << sq), -alpha - 1,
                                  empties - 1)
            else:
                v = -_solve_4(ctx, O ^ f, P | f | ((<uint64_t>1) << sq), -alpha - 1)
            if v > best:
                best = v
                if v > alpha:
                    return best
    return best


cdef inline int _mobility(uint64_t replies) noexcept nogil:
    """How many ``replies`` the opponent has, corners counted twice (the order's measure)."""
    return count(replies) + count(replies & CORNERS)


cdef inline int _corner_stability(uint64_t b) noexcept nogil:
    """The discs of ``b`` that no move can turn, found cheaply: its corners, and the edge
    squares next to a corner it holds."""
    return count(b & ((((0x0100000000000001ULL & b) << 1) | ((0x8000000000000080ULL & b) >> 1)
                       | ((0x0000000000000081ULL & b) << 8) | ((0x8100000000000000ULL & b) >> 8)
                       | CORNERS)))


cdef struct MoveList:
    # A node's moves in the order's lists: the merit of each (distinct, higher first), its
    # square and the discs it flips, at the same index.
    int64_t keys[64]
    int squares[64]
    uint64_t flipped[64]


cdef inline int64_t _rank(int key, int n) noexcept nogil:
    """The sort key of the ``n``-th move met, of merit ``key`` (higher first): distinct,
    ties going to the move met first."""
    return (<int64_t>key) * 64 + (63 - n)


cdef inline void _swap(MoveList* ml, int i, int b) noexcept nogil:
    cdef int64_t k = ml.keys[i]
    cdef int sq = ml.squares[i]
    cdef uint64_t f = ml.flipped[i]
    ml.keys[i] = ml.keys[b]
    ml.keys[b] = k
    ml.squares[i] = ml.squares[b]
    ml.squares[b] = sq
    ml.flipped[i] = ml.flipped[b]
    ml.flipped[b] = f


cdef inline void _keep(MoveList* ml, int n, int key, int sq, uint64_t f, int* top,
                       int64_t* top_rank) noexcept nogil:
    """Put the ``n``-th move met, of merit ``key``, in ``ml``; ``top`` and ``top_rank``
    follow the best so far (by conditional moves), which the orderers bring to the front
    when they are done: the searches' first pick is then free."""
    cdef int64_t rank = _rank(key, n)
    ml.keys[n] = rank
    ml.squares[n] = sq
    ml.flipped[n] = f
    top[0] = n if rank > top_rank[0] else top[0]
    top_rank[0] = rank if rank > top_rank[0] else top_rank[0]


cdef inline void _pick(MoveList* ml, int i, int n) noexcept nogil:
    """Bring the best of moves ``i..n-1`` to ``i`` (selection, as Edax picks its next
    move: at most nodes the first move decides, and the rest is never sorted).  The keys
    are distinct, so the moves come in one order however the rest is shuffled.  The
    orderers (``_order``, ``_fewest_replies``) leave the best move first already: the
    searches pick from the second move on."""
    cdef int j, b = i
    cdef int64_t k, top = ml.keys[i]
    for j in range(i + 1, n):
        # The best so far in registers (a conditional move, not a guessed branch).
        k = ml.keys[j]
        b = j if k > top else b
        top = k if k > top else top
    if b != i:
        _swap(ml, i, b)


cdef inline void _sort(MoveList* ml, int i, int n) noexcept nogil:
    """Moves ``i..n-1`` in their order (for a split point's helpers, who take them in
    turn)."""
    while i < n - 1:
        _pick(ml, i, n)
        i += 1


cdef inline bint _refutes(Context* ctx, Entry* bucket, uint64_t P, uint64_t O, int alpha,
                          int* cutoff) noexcept nogil:
    """An enhanced transposition cutoff: true, with the score in ``cutoff``, when the
    child (P, O) has a bound in its table ``bucket``, from a search at least as sure as
    this one, that refutes its parent's null window above ``alpha``."""
    cdef Found e
    if (_probe_bucket(bucket, P, O, &e) and e.certainty >= ctx.certainty
            and -e.upper > alpha):
        cutoff[0] = -e.upper
        return True
    return False


cdef inline int _key(uint64_t P, uint64_t O, int sq, uint64_t f, int hash_move,
                     uint64_t empty, uint64_t isolated, int empties, bint eager,
                     int penalty) noexcept nogil:
    """The merit of the move to ``sq`` (flipping ``f``) in the order, higher first, less
    ``penalty`` unless it is the hash move or a wipe-out; FORCED_KEY if ``eager`` and it
    leaves the opponent at most FORCING replies."""
    cdef uint64_t after_P = O ^ f                        # the opponent, to move next
    cdef uint64_t after_O = P | f | ((<uint64_t>1) << sq)
    cdef uint64_t replies
    cdef int key
    if sq == hash_move:
        return 1 << 30
    if after_P == 0:
        return 1 << 29                                    # wipe-out
    replies = legal_moves(after_P, after_O)
    if eager and _mobility(replies) <= FORCING:
        return FORCED_KEY
    # Fewest replies first (corners count twice), then the mover's discs made safe at the
    # corners (as Edax orders), then from POTENTIAL_EMPTIES fewest empty squares next to
    # the mover's discs (the opponent's potential mobility).
    key = (((36 - _mobility(replies)) << 8)
           + CORNER_SAFE_WEIGHT * _corner_stability(after_O))
    if empties >= POTENTIAL_EMPTIES:
        key -= count(empty & ~((<uint64_t>1) << sq) & _around(after_O))
    if (CORNERS >> sq) & 1:
        key += 1 << 6
    if (isolated >> sq) & 1:
        key += ISOLATED_BONUS
    return key - penalty


cdef int _order(Context* ctx, uint64_t P, uint64_t O, uint64_t moves, int hash_move,
                MoveList* ml, int empties, int alpha, int* cutoff, bint* eager) noexcept nogil:
    """Fill ``ml`` with the moves and their merit (distinct, higher first, the best
    already first: ``_pick`` takes the rest in order); returns how many.  Given a
    ``cutoff`` (a null-window node: enhanced transposition cutoffs), a child whose stored
    bound already refutes this node sets it to the score and 0 is returned; NULL (a
    principal-variation node, whose window is not null) orders without them.  Given
    ``eager`` true, the first move met that leaves the opponent at most FORCING replies
    ends the ordering, alone in ``ml`` (after the transposition cutoffs), and ``eager``
    stays true; otherwise it is set false."""
    cdef int sqs[64]
    cdef uint64_t fs[64]
    cdef Entry* buckets[64]
    cdef uint64_t f, empty = ~(P | O)
    # The moves that get ISOLATED_BONUS (none where the evaluation orders).
    cdef uint64_t isolated = _isolated(empty) if empties < EVAL_SORT_EMPTIES else 0
    cdef int n = 0, m = 0, i, sq, key, depth, forced = -1, top = 0
    cdef int values[64]          # the evaluation's search of each child (where it orders)
    cdef int64_t top_rank = INT64_MIN           # keys[top]: the best so far
    cdef unsigned long long eval_nodes = 0
    cdef bint evaluated = ctx.evaluate != NULL and empties >= EVAL_SORT_EMPTIES
    # The children's table (NULL: they have none).
    cdef Table* child_table = (_tt(ctx, empties - 1)
                               if ctx.table != NULL and empties > TT_EMPTIES else NULL)
    # First every child and the fetch of its table bucket, so that the buckets arrive
    # together rather than one after the other (the ETC probes below, the children's
    # own probes later).
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        f = flips(P, O, sq)
        sqs[m] = sq
        fs[m] = f
        if child_table != NULL:
            buckets[m] = _prefetch(child_table, O ^ f, P | f | ((<uint64_t>1) << sq))
        m += 1
    if evaluated:
        # The children's transposition cutoffs before their evaluation searches, which
        # cost more; then the searches, from the children's side ("1 reply less is worth
        # two discs", below).  Moves SORT_WINDOW discs or more below alpha are told apart
        # no further (Edax's window): those searches stop early.
        if cutoff != NULL and child_table != NULL:
            for i in range(m):
                if _refutes(ctx, buckets[i], O ^ fs[i], P | fs[i] | ((<uint64_t>1) << sqs[i]),
                            alpha, cutoff):
                    return 0
        depth = _sort_depth(empties)
        if depth <= EVAL_TAIL_DEPTH:
            # One reading of the pattern indices for all the children.
            ctx.eval_children(ctx.eval_weights, P, O, m, sqs, fs, depth, -VALUE_INF,
                              (SORT_WINDOW - alpha) * EVAL_SCALE, values, &eval_nodes)
            ctx.nodes += eval_nodes
        else:
            for i in range(m):
                values[i] = _eval_search(ctx, O ^ fs[i], P | fs[i] | ((<uint64_t>1) << sqs[i]),
                                         -VALUE_INF, (SORT_WINDOW - alpha) * EVAL_SCALE, depth)
    for i in range(m):
        # Far from the end, what the evaluation thinks of the move counts too (Edax sorts
        # by a shallow search there): one reply less is worth two discs.
        key = _key(P, O, sqs[i], fs[i], hash_move, empty, isolated, empties,
                   eager != NULL and eager[0],
                   values[i] * 128 // EVAL_SCALE if evaluated else 0)
        if key == FORCED_KEY:
            forced = i
            break
        _keep(ml, n, key, sqs[i], fs[i], &top, &top_rank)
        n += 1
    if cutoff != NULL and child_table != NULL and not evaluated:
        # Enhanced transposition cutoffs wherever the children are in a table (with the
        # near tables the probes of 8-13 empties are cheap), after the ordering's work,
        # which gives the children's buckets time to arrive (probed as soon as fetched,
        # the search waited on them), and of every child, even after a forcing move is
        # met.
        for i in range(m):
            if _refutes(ctx, buckets[i], O ^ fs[i], P | fs[i] | ((<uint64_t>1) << sqs[i]),
                        alpha, cutoff):
                return 0
    if forced >= 0:
        ml.squares[0] = sqs[forced]
        ml.flipped[0] = fs[forced]
        return 1
    if eager != NULL:
        eager[0] = False
    if top != 0:
        _swap(ml, 0, top)       # the best first
    return n


cdef inline int _sort_depth(int empties) noexcept nogil:
    """How deep the evaluation looks when it orders the moves of a node."""
    cdef int d = (empties - EVAL_SORT_EMPTIES + 2) // 4
    return 0 if d < 0 else 4 if d > 4 else d


cdef inline int _fewest_replies(uint64_t P, uint64_t O, uint64_t moves,
                                MoveList* ml) noexcept nogil:
    """Fill ``ml`` with ``moves`` and their merit for ``_pick``, the best first: the fewer
    replies they leave the opponent, the better (corners count twice); returns how
    many."""
    cdef int n = 0, sq, top = 0
    cdef int64_t top_rank = INT64_MIN
    cdef uint64_t f, replies
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        f = flips(P, O, sq)
        replies = legal_moves(O ^ f, P | f | ((<uint64_t>1) << sq))
        _keep(ml, n, -_mobility(replies), sq, f, &top, &top_rank)
        n += 1
    if top != 0:
        _swap(ml, 0, top)       # the best first
    return n


cdef int _eval_search(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta,
                      int depth) noexcept nogil:
    """Alpha-beta to ``depth`` with the evaluation at the leaves (1/EVAL_SCALE disc, side
    owning ``P``): the move ordering's look ahead, and the selective cuts' prediction.
    The order of its moves changes its cost, never its value inside the window."""
    cdef int best = -VALUE_INF, v, n, i
    cdef MoveList ml
    cdef uint64_t moves
    cdef unsigned long long tail_nodes = 0
    if depth == 0:
        ctx.nodes += 1
        return ctx.evaluate(ctx.eval_weights, P, O)
    if depth <= EVAL_TAIL_DEPTH:
        v = ctx.eval_tail(ctx.eval_weights, P, O, depth, alpha, beta, &tail_nodes)
        ctx.nodes += tail_nodes
        return v
    ctx.nodes += 1
    if _should_stop(ctx):
        # One such search of a selective pass can run to millions of nodes (a depth-7
        # cut far from the end): the limits are looked at inside it too.
        return 0
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        return -_eval_search(ctx, O, P, -beta, -alpha, depth)
    # Deeper than the tail, fewest replies first: in square order such a search costs
    # many times as much.
    n = _fewest_replies(P, O, moves, &ml)
    for i in range(n):
        if i > 0:
            _pick(&ml, i, n)
        v = -_eval_search(ctx, O ^ ml.flipped[i],
                          P | ml.flipped[i] | ((<uint64_t>1) << ml.squares[i]),
                          -beta, -alpha, depth - 1)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


cdef inline int _probcut_depth(int empties) noexcept nogil:
    """The depth of the evaluation search that predicts a node's exact score."""
    return PROBCUT_DEPTH_MIN + (empties - PROBCUT_MIN_EMPTIES) // PROBCUT_EMPTIES_PER_PLY


cdef int _probcut(Context* ctx, uint64_t P, uint64_t O, int alpha,
                  int empties) noexcept nogil:
    """Multi-ProbCut for the endgame (Buro; Edax's selective endgame): a shallow search of
    the evaluation predicts the exact score, with a spread sigma(empties, depth) fitted by
    research/endgame_probcut/fit.py (``_solver_probcut.pxi``).  When the prediction
    lies ``probcut`` sigmas above the null window the node fails high (``alpha + 1``), when
    as far below it fails low (``alpha``); else -INF (search the node)."""
    cdef int depth = _probcut_depth(empties), v
    cdef double sigma = exp(EG_PROBCUT_CONST + EG_PROBCUT_EMPTIES * empties
                            + EG_PROBCUT_DEPTH * depth)
    cdef double margin = ctx.probcut * sigma
    cdef int bound
    # exact ~ shallow + bias: the exact score is above alpha when shallow - (alpha + 1 -
    # bias) is margin above zero.
    if alpha + 1 + margin < 64:
        bound = <int>ceil((alpha + 1 + margin - EG_PROBCUT_BIAS) * EVAL_SCALE)
        v = _eval_search(ctx, P, O, bound - 1, bound, depth)
        if v >= bound:
            return alpha + 1
    if alpha - margin > -64:
        bound = <int>floor((alpha - margin - EG_PROBCUT_BIAS) * EVAL_SCALE)
        v = _eval_search(ctx, P, O, bound, bound + 1, depth)
        if v <= bound:
            return alpha
    return -INF


cdef int _nws_table(Context* ctx, uint64_t P, uint64_t O, int alpha,
                    int empties) noexcept nogil:
    """TT_EMPTIES or more empties: transposition table, fastest-first, stability, ETC."""
    cdef uint64_t moves, f
    cdef int best = -INF, v, i, n, hash_move = PASS_MOVE, cutoff = -INF
    cdef bint eager
    cdef MoveList ml
    cdef Found e
    cdef Table* tt = _tt(ctx, empties)
    cdef uint64_t nodes0 = ctx.nodes
    ctx.nodes += 1
    if _should_stop(ctx):
        return 0
    v = _stability_cutoff(P, O, alpha, empties)
    if v != INF:
        return v
    if tt != NULL and _probe(tt, P, O, &e):
        if e.certainty >= ctx.certainty:      # bounds at least as sure as this search
            if e.lower > alpha:
                return e.lower
            if e.upper <= alpha:
                return e.upper
        hash_move = e.move
    if ctx.probcut > 0 and empties >= PROBCUT_MIN_EMPTIES and ctx.evaluate != NULL:
        v = _probcut(ctx, P, O, alpha, empties)
        if v != -INF:
            if tt != NULL and not ctx.aborted:
                _store(tt, P, O, alpha, alpha + 1, v, hash_move,
                       ctx.certainty, ctx.nodes - nodes0)
            return v
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O)
        return -_nws_table(ctx, O, P, -alpha - 1, empties)
    if hash_move != PASS_MOVE and (moves >> hash_move) & 1:
        # The stored best move first, before any ordering work: it often refutes at once.
        f = flips(P, O, hash_move)
        best = -_nws(ctx, O ^ f, P | f | ((<uint64_t>1) << hash_move), -alpha - 1,
                     empties - 1)
        moves ^= (<uint64_t>1) << hash_move
        if best > alpha or moves == 0:
            if tt != NULL and not ctx.aborted:
                _store(tt, P, O, alpha, alpha + 1, best, hash_move,
                       ctx.certainty, ctx.nodes - nodes0)
            return best
    # Where the ordering is cheap, a forcing move is searched as soon as it is met.
    eager = empties < EVAL_SORT_EMPTIES and (moves & (moves - 1)) != 0
    n = _order(ctx, P, O, moves, PASS_MOVE, &ml, empties, alpha, &cutoff, &eager)
    if cutoff != -INF:
        return cutoff
    if eager:
        v = -_nws(ctx, O ^ ml.flipped[0], P | ml.flipped[0] | ((<uint64_t>1) << ml.squares[0]),
                  -alpha - 1, empties - 1)
        if v > best:
            best = v
            hash_move = ml.squares[0]
        n = 0
        if best <= alpha:
            n = _order(ctx, P, O, moves ^ ((<uint64_t>1) << ml.squares[0]), PASS_MOVE, &ml,
                       empties, alpha, &cutoff, NULL)
            if cutoff != -INF:
                return cutoff
    for i in range(n):
        if (ctx.workers != NULL and empties >= SPLIT_EMPTIES and n - i >= 2
                and ctx.workers.idle > 0 and (i > 0 or best != -INF)):
            # The eldest brother is searched: the rest may go to idle helpers.
            _sort(&ml, i, n)
            _split(ctx, P, O, alpha, empties, ml.squares + i, ml.flipped + i, n - i, &best,
                   &hash_move)
            break
        if i > 0:
            _pick(&ml, i, n)
        v = -_nws(ctx, O ^ ml.flipped[i], P | ml.flipped[i] | ((<uint64_t>1) << ml.squares[i]),
                  -alpha - 1, empties - 1)
        if v > best:
            best = v
            hash_move = ml.squares[i]
            if v > alpha:
                break
    if tt != NULL and not ctx.aborted:
        _store(tt, P, O, alpha, alpha + 1, best, hash_move, ctx.certainty,
               ctx.nodes - nodes0)
    return best


# -- principal variation search --------------------------------------------------------------

cdef int _pvs(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta, int empties,
              int* best_move) noexcept nogil:
    """The score inside (alpha, beta) exactly, else a bound; ``best_move`` gets the move
    that reached it (PASS_MOVE when the side to move must pass)."""
    cdef uint64_t moves, child_P, child_O
    cdef int best = -INF, v, i, n, hash_move = PASS_MOVE, alpha0 = alpha, child_move
    cdef MoveList ml
    cdef Found e
    cdef Table* tt = _tt(ctx, empties)
    cdef uint64_t nodes0 = ctx.nodes
    best_move[0] = PASS_MOVE
    ctx.nodes += 1
    if _should_stop(ctx):
        return 0
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O)
        return -_pvs(ctx, O, P, -beta, -alpha, empties, &child_move)
    if tt != NULL and empties >= TT_EMPTIES and _probe(tt, P, O, &e):
        hash_move = e.move
        if (e.lower == e.upper and e.certainty >= ctx.certainty and hash_move != PASS_MOVE
                and (moves >> hash_move) & 1):
            best_move[0] = hash_move
            return e.lower
    # The same order as a null-window node's (the evaluation's from EVAL_SORT_EMPTIES),
    # without the transposition cutoffs, which need a null window.
    n = _order(ctx, P, O, moves, hash_move, &ml, empties, alpha, NULL, NULL)
    for i in range(n):
        if i > 0:
            _pick(&ml, i, n)
        child_P = O ^ ml.flipped[i]
        child_O = P | ml.flipped[i] | ((<uint64_t>1) << ml.squares[i])
        if i == 0:
            v = -_pvs(ctx, child_P, child_O, -beta, -alpha, empties - 1, &child_move)
        else:
            v = -_nws(ctx, child_P, child_O, -alpha - 1, empties - 1)
            if alpha < v < beta and not ctx.aborted:
                v = -_pvs(ctx, child_P, child_O, -beta, -v, empties - 1, &child_move)
        if ctx.aborted:
            return 0
        if v > best:
            best = v
            best_move[0] = ml.squares[i]
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if tt != NULL and empties >= TT_EMPTIES:
        _store(tt, P, O, alpha0, beta, best, best_move[0], ctx.certainty,
               ctx.nodes - nodes0)
    return best


cdef int _run(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta, int empties,
              int* best_move, int threads) noexcept nogil:
    """The solve: ``_pvs`` from the root, with ``threads - 1`` helper threads sharing the
    work of nodes with at least SPLIT_EMPTIES empties (and the shared transposition
    table; each has its own near the leaves, ``ctx.near[1 + i]``).  Without memory for
    the helpers' handles it solves alone."""
    cdef Workers w
    cdef cy_thread* pool = NULL
    cdef Context* helpers = NULL
    cdef int i, started = 0, score
    ctx.workers = NULL
    ctx.sp = NULL
    if threads > 1:
        pool = <cy_thread*>calloc(threads - 1, sizeof(cy_thread))
        helpers = <Context*>calloc(threads - 1, sizeof(Context))
    if pool == NULL or helpers == NULL:
        free(pool)
        free(helpers)
        return _pvs(ctx, P, O, alpha, beta, empties, best_move)
    cy_mutex_init(&w.lock)
    cy_cond_init(&w.wake)
    cy_cond_init(&w.done)
    w.n_open = 0
    w.idle = 0
    w.quit = 0
    w.abort = 0
    w.nodes = 0
    w.counted = <int64_t>ctx.nodes
    ctx.reported = ctx.nodes
    ctx.workers = &w
    for i in range(threads - 1):
        helpers[i] = ctx[0]
        if ctx.near != NULL:
            helpers[i].near = ctx.near + 1 + i
        if cy_thread_create(&pool[started], _helper, &helpers[i]) == 0:
            started += 1
    score = _pvs(ctx, P, O, alpha, beta, empties, best_move)
    # Every split point waits for its helpers, so none is searching now.
    cy_mutex_lock(&w.lock)
    w.quit = 1
    cy_cond_broadcast(&w.wake)
    cy_mutex_unlock(&w.lock)
    for i in range(started):
        cy_thread_join(pool[i])
    free(pool)
    free(helpers)
    ctx.nodes += w.nodes
    if w.abort:
        ctx.aborted = True
    ctx.workers = NULL
    cy_cond_destroy(&w.done)
    cy_cond_destroy(&w.wake)
    cy_mutex_destroy(&w.lock)
    return score


# The entry point crosses from the v3 build to the portable one in a capsule; its name
# carries the signature, so a mismatched pair of builds fails to load instead of crashing.
cdef const char* RUN_CAPSULE = (b"cythello.search.endgame._solver_impl._run: int (Context*, "
                                b"uint64_t, uint64_t, int, int, int, int*, int)")


def _capsule():
    """The search entry point of this build (for the portable module to call)."""
    return PyCapsule_New(<void*>_run, RUN_CAPSULE, NULL)
