# The pattern evaluation in C, included by two modules: ``_patterns`` (portable, which holds
# the Python interface) and ``_patterns_v3`` (the same code built for x86-64-v3, loaded
# only on CPUs that have AVX2, BMI1/2 and POPCNT; see cythello.core._cpu).  Both give the
# same indices and sums.
#
# Every instance of a pattern is the pattern's own squares read on a transformed board: the
# board is turned by each of the 8 symmetries once (a byte swap, a column mirror and a
# transposition, ~60 instructions per side), and each pattern is then cut out of the
# transformed boards with a few shifts.  Binary patterns become base-3 indices through one
# 1024-entry table: index = B3[own bits] + 2 * B3[opponent bits].  Parity and each side's
# mobility (its legal moves, capped) follow the pattern instances.
from libc.stdint cimport uint64_t, int16_t, uint16_t, int32_t
from libc.string cimport memcpy
from cpython.pycapsule cimport PyCapsule_New

from cythello.core._rules cimport (
    count, legal_moves, flips, first_square, final_disc_difference,
)
from cythello.core._symmetry cimport flip_columns, flip_rows, transpose
from cythello.eval._layout cimport (
    EVAL_SCALE, N_STAGES, TABLE_SIZE, SEARCH_INF, EvalFunctions,
)

cdef enum:
    N_INSTANCES = 46
    N_INDICES = 49            # the instances, then parity and the two mobilities
    PARITY_WEIGHTS = 2        # even, odd number of empties
    MOBILITY_SLOTS = 32       # per side: 0..31 legal moves (more count as 31)

# The patterns in cythello.eval.patterns.PATTERNS order.
cdef enum:
    EDGE_2X = 0
    CORNER_2X5 = 1
    CORNER_3X3 = 2
    ROW_2 = 3
    ROW_3 = 4
    ROW_4 = 5
    DIAGONAL_8 = 6
    DIAGONAL_7 = 7
    DIAGONAL_6 = 8
    DIAGONAL_5 = 9
    DIAGONAL_4 = 10
    N_PATTERNS = 11

cdef uint16_t B3[1024]                 # bits -> base-3 number with the same digits
cdef int32_t OFFSET[N_PATTERNS + 1]    # where each pattern's table starts (then parity)
cdef int INSTANCE[N_INSTANCES]         # symmetry of each instance, pattern by pattern
cdef int INSTANCES_OF[N_PATTERNS]
INSTANCES_OF[:] = [4, 8, 4, 4, 4, 4, 2, 4, 4, 4, 4]     # as _indices reads them
cdef int STAGE[65]                     # empties -> stage


cdef void _init_eval_tables() except *:
    from cythello.eval import patterns as defs
    cdef int x, i, n = 0, t, power
    for x in range(1024):
        B3[x] = 0
        power = 1
        for i in range(10):
            if x >> i & 1:
                B3[x] += power
            power *= 3
    if len(defs.PATTERNS) != N_PATTERNS or defs.N_STAGES != N_STAGES:
        raise ImportError("cythello.eval.patterns does not match the compiled evaluator")
    OFFSET[0] = 0
    for t, lay in enumerate(defs.layouts()):
        OFFSET[t + 1] = OFFSET[t] + 3 ** lay.pattern.size
        if len(lay.instances) != INSTANCES_OF[t]:
            raise ImportError(f"pattern {lay.pattern.name} has {len(lay.instances)} instances")
        for k in lay.instances:
            INSTANCE[n] = k
            n += 1
    if (n != N_INSTANCES or defs.MOBILITY_SLOTS != MOBILITY_SLOTS
            or defs.PARITY_WEIGHTS != PARITY_WEIGHTS
            or OFFSET[N_PATTERNS] + PARITY_WEIGHTS + 2 * MOBILITY_SLOTS != TABLE_SIZE):
        raise ImportError("cythello.eval.patterns does not match the compiled evaluator")
    for x in range(65):
        STAGE[x] = defs.stage_of(x)

_init_eval_tables()


cdef inline uint64_t _cut(int kind, uint64_t b) noexcept nogil:
    """The squares of pattern ``kind`` on board ``b`` as bits in digit order (see
    cythello.eval.patterns for the square lists)."""
    if kind == EDGE_2X:                  # a1..h1, b2, g2
        return (b & 0xFF) | ((b >> 1) & 0x100) | ((b >> 5) & 0x200)
    if kind == CORNER_2X5:               # a1..e1, a2..e2
        return (b & 0x1F) | ((b >> 3) & 0x3E0)
    if kind == CORNER_3X3:               # a1..c1, a2..c2, a3..c3
        return (b & 0x7) | ((b >> 5) & 0x38) | ((b >> 10) & 0x1C0)
    if kind == ROW_2:
        return (b >> 8) & 0xFF
    if kind == ROW_3:
        return (b >> 16) & 0xFF
    if kind == ROW_4:
        return (b >> 24) & 0xFF
    # Diagonals: one square per row and column, so summing the rows (a multiply) lines
    # them up in the top byte by column without carries.
    if kind == DIAGONAL_8:               # a1, b2, ..., h8
        return ((b & 0x8040201008040201ULL) * 0x0101010101010101ULL) >> 56
    if kind == DIAGONAL_7:               # b1, c2, ..., h7
        return ((b & 0x0080402010080402ULL) * 0x0101010101010101ULL) >> 57
    if kind == DIAGONAL_6:               # c1, ..., h6
        return ((b & 0x0000804020100804ULL) * 0x0101010101010101ULL) >> 58
    if kind == DIAGONAL_5:               # d1, ..., h5
        return ((b & 0x0000008040201008ULL) * 0x0101010101010101ULL) >> 59
    return ((b & 0x0000000080402010ULL) * 0x0101010101010101ULL) >> 60     # e1, ..., h4


cdef inline void _eight(uint64_t b, uint64_t* out) noexcept nogil:
    """``b`` under the 8 symmetries, in Board.transform order."""
    out[0] = b
    out[1] = flip_columns(b)
    out[2] = flip_rows(b)
    out[3] = flip_rows(out[1])
    out[4] = transpose(b)
    out[5] = transpose(out[1])
    out[6] = transpose(out[2])
    out[7] = transpose(out[3])


cdef inline int _read(int kind, int n, int i, const uint64_t* p8, const uint64_t* o8,
                      int32_t* out, int32_t* theirs) noexcept nogil:
    """The indices of the ``n`` instances of pattern ``kind``, from ``out[i]`` on, as the
    side owning ``p8`` reads them, and (unless ``theirs`` is NULL) as the other side does
    (its digits 1 and 2 swapped); returns the next free slot.  Called with constant
    ``kind`` and ``n``, so each call compiles to straight-line code for its pattern."""
    cdef int j, k, own, other
    for j in range(n):
        k = INSTANCE[i + j]
        own = B3[_cut(kind, p8[k])]
        other = B3[_cut(kind, o8[k])]
        out[i + j] = OFFSET[kind] + own + 2 * other
        if theirs != NULL:
            theirs[i + j] = OFFSET[kind] + other + 2 * own
    return i + n


cdef inline int _mobility(uint64_t P, uint64_t O) noexcept nogil:
    """The legal moves of the side owning ``P``, capped to the table."""
    cdef int n = count(legal_moves(P, O))
    return n if n < MOBILITY_SLOTS else MOBILITY_SLOTS - 1


cdef inline void _instances(const uint64_t* p8, const uint64_t* o8, int32_t* out,
                            int32_t* theirs) noexcept nogil:
    """The index of each of the 46 pattern instances (with its pattern's table offset) as
    the side whose discs ``p8`` holds (under the 8 symmetries) reads them, and unless
    ``theirs`` is NULL as the other side does (one reading of the board for both)."""
    cdef int i = 0
    i = _read(EDGE_2X, 4, i, p8, o8, out, theirs)
    i = _read(CORNER_2X5, 8, i, p8, o8, out, theirs)
    i = _read(CORNER_3X3, 4, i, p8, o8, out, theirs)
    i = _read(ROW_2, 4, i, p8, o8, out, theirs)
    i = _read(ROW_3, 4, i, p8, o8, out, theirs)
    i = _read(ROW_4, 4, i, p8, o8, out, theirs)
    i = _read(DIAGONAL_8, 2, i, p8, o8, out, theirs)
    i = _read(DIAGONAL_7, 4, i, p8, o8, out, theirs)
    i = _read(DIAGONAL_6, 4, i, p8, o8, out, theirs)
    i = _read(DIAGONAL_5, 4, i, p8, o8, out, theirs)
    i = _read(DIAGONAL_4, 4, i, p8, o8, out, theirs)


cdef inline void _indices(uint64_t P, uint64_t O, int32_t* out) noexcept nogil:
    """The table index of every feature of the position, side owning ``P`` to move: the
    46 pattern instances (each with its pattern's table offset), then parity, then the
    mover's and the opponent's mobility."""
    cdef uint64_t p8[8]
    cdef uint64_t o8[8]
    cdef int i = N_INSTANCES
    _eight(P, p8)
    _eight(O, o8)
    _instances(p8, o8, out, NULL)
    out[i] = OFFSET[N_PATTERNS] + (count(P | O) & 1)
    out[i + 1] = OFFSET[N_PATTERNS] + PARITY_WEIGHTS + _mobility(P, O)
    out[i + 2] = OFFSET[N_PATTERNS] + PARITY_WEIGHTS + MOBILITY_SLOTS + _mobility(O, P)


cdef enum:
    MAX_EVAL = 64 * EVAL_SCALE          # the evaluation's range: a final score's


cdef inline int _sum(const int16_t* weights, const int32_t* mine, uint64_t P, uint64_t O,
                     uint64_t moves) noexcept nogil:
    """The evaluation of the position (side owning ``P`` to move) from its pattern instances'
    indices as the mover reads them (``mine``) and the mover's legal ``moves``: their
    weights, parity's and both sides' mobility's, in the stage's table, within +-64
    discs."""
    cdef int discs = count(P | O)
    cdef const int16_t* w = weights + STAGE[64 - discs] * <long>TABLE_SIZE
    cdef int i, mobility = count(moves), s = 0
    for i in range(N_INSTANCES):
        s += w[mine[i]]
    if mobility >= MOBILITY_SLOTS:
        mobility = MOBILITY_SLOTS - 1
    s += w[OFFSET[N_PATTERNS] + (discs & 1)]
    s += w[OFFSET[N_PATTERNS] + PARITY_WEIGHTS + mobility]
    s += w[OFFSET[N_PATTERNS] + PARITY_WEIGHTS + MOBILITY_SLOTS + _mobility(O, P)]
    # Within the scores a game can end with: a sum past +-64 discs (extreme weights, an
    # odd position) is no expectation of a result, and the searches take any score beyond
    # it for a proven win or loss.
    if s > MAX_EVAL:
        return MAX_EVAL
    if s < -MAX_EVAL:
        return -MAX_EVAL
    return s


cdef int _evaluate(const int16_t* weights, uint64_t P, uint64_t O) noexcept nogil:
    """The expected final disc difference for the side owning ``P``, in 1/EVAL_SCALE disc."""
    cdef uint64_t p8[8]
    cdef uint64_t o8[8]
    cdef int32_t mine[N_INSTANCES]
    _eight(P, p8)
    _eight(O, o8)
    _instances(p8, o8, mine, NULL)
    return _sum(weights, mine, P, O, legal_moves(P, O))


# -- shallow searches that follow the indices move by move ------------------------------
#
# A search a few plies deep evaluates positions one move apart.  Instead of reading every
# pattern instance from scratch at each of them (the 16 transformed boards above), it
# keeps each instance's index and, for a move, adds the change of the squares that
# changed (the placed disc and the flipped ones: about 5 squares, each in 4 to 8
# instances; DIGIT below).  An index reads a disc as 1 for the side whose view it is and
# 2 for the other, so the search keeps both sides' views and swaps them at each ply.  The
# sums are the same integers as the evaluation's, so the scores are exactly those of a
# plain alpha-beta search calling ``_evaluate`` (tests/test_puct.py, tests/test_mcts.py:
# against a minimax of the evaluation).

cdef enum:
    N_PADDED = 48                       # N_INSTANCES rounded up to whole vectors

# DIGIT[s][j]: the weight (3**i) of square s's digit in instance j, 0 where j does not
# read s; a changed square adds a multiple of its row to the indices, a whole row at a
# time (a few vector additions).
cdef int32_t DIGIT[64][N_PADDED]


cdef void _init_digits() except *:
    # Read from the evaluator itself: a lone disc of the viewer on square s is digit 1
    # in every instance that reads s, so the index grows by that digit's weight there.
    cdef int32_t empty[N_INDICES]
    cdef int32_t lone[N_INDICES]
    cdef int s, j
    _indices(0, 0, empty)
    for s in range(64):
        _indices((<uint64_t>1) << s, 0, lone)
        for j in range(N_PADDED):
            DIGIT[s][j] = lone[j] - empty[j] if j < N_INSTANCES else 0

_init_digits()


cdef inline void _both_views(uint64_t P, uint64_t O, int32_t* mine,
                             int32_t* theirs) noexcept nogil:
    """The instances' indices as the side owning ``P`` reads them and as the other does
    (the digits 1 and 2 swapped: each index's own and opponent parts exchanged)."""
    cdef uint64_t p8[8]
    cdef uint64_t o8[8]
    cdef int i
    _eight(P, p8)
    _eight(O, o8)
    _instances(p8, o8, mine, theirs)
    for i in range(N_INSTANCES, N_PADDED):
        mine[i] = theirs[i] = 0


cdef inline void _add(int32_t* index, uint64_t squares, int32_t digit) noexcept nogil:
    """Each of ``squares`` gains ``digit`` (a change of its digit) in every instance."""
    cdef int s, j
    while squares:
        s = first_square(squares)
        squares &= squares - 1
        for j in range(N_PADDED):
            index[j] += digit * DIGIT[s][j]


cdef inline void _child_views(const int32_t* mine, const int32_t* theirs, uint64_t bit,
                              uint64_t f, bint both, int32_t* child_mine,
                              int32_t* child_theirs) noexcept nogil:
    """The views of the position after a move on ``bit`` that turns ``f``, from the
    mover's views: the opponent moves next, and its view (``child_mine``) gets the new
    disc as 2 and the flipped discs from 1 to 2; the mover's (``child_theirs``, only if
    ``both``: a search that goes deeper reads it), the new disc 1 and flips 2 to 1."""
    memcpy(child_mine, theirs, N_PADDED * sizeof(int32_t))
    _add(child_mine, bit, 2)
    _add(child_mine, f, 1)
    if both:
        memcpy(child_theirs, mine, N_PADDED * sizeof(int32_t))
        _add(child_theirs, bit, 1)
        _add(child_theirs, f, -1)


cdef int _search_views(const int16_t* weights, uint64_t P, uint64_t O,
                       const int32_t* mine, const int32_t* theirs, int depth, int alpha,
                       int beta, unsigned long long* nodes) noexcept nogil:
    """``_search`` with the instance indices of both views at hand (``theirs`` is not read
    at depth 0)."""
    cdef uint64_t moves = legal_moves(P, O), f, bit
    cdef int32_t child_mine[N_PADDED]
    cdef int32_t child_theirs[N_PADDED]
    cdef int sq, v, best = -SEARCH_INF
    nodes[0] += 1
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        if depth == 0:
            return -_evaluate(weights, O, P)
        return -_search_views(weights, O, P, theirs, mine, depth, -beta, -alpha, nodes)
    if depth == 0:
        return _sum(weights, mine, P, O, moves)
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        bit = (<uint64_t>1) << sq
        f = flips(P, O, sq)
        _child_views(mine, theirs, bit, f, depth > 1, child_mine, child_theirs)
        v = -_search_views(weights, O & ~f, P | f | bit, child_mine, child_theirs,
                           depth - 1, -beta, -alpha, nodes)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


cdef int _search(const int16_t* weights, uint64_t P, uint64_t O, int depth, int alpha,
                 int beta, unsigned long long* nodes) noexcept nogil:
    """The depth-``depth`` alpha-beta score of the evaluation (in its units) for the side
    owning ``P``: a pass uses no depth, a finished game scores its disc difference
    exactly; fail-soft, so with (-SEARCH_INF, SEARCH_INF) it is the exact minimax score.
    Each position visited adds one to ``nodes[0]``."""
    cdef int32_t mine[N_PADDED]
    cdef int32_t theirs[N_PADDED]
    cdef uint64_t moves
    if depth == 0:            # one evaluation: reading it from scratch costs less
        nodes[0] += 1
        moves = legal_moves(P, O)
        if moves == 0:
            if legal_moves(O, P) == 0:
                return final_disc_difference(P, O) * EVAL_SCALE
            return -_evaluate(weights, O, P)
        return _evaluate(weights, P, O)
    _both_views(P, O, mine, theirs)
    return _search_views(weights, P, O, mine, theirs, depth, alpha, beta, nodes)


cdef void _children(const int16_t* weights, uint64_t P, uint64_t O, int n,
                    const int* squares, const uint64_t* flipped, int depth, int alpha,
                    int beta, int* values, unsigned long long* nodes) noexcept nogil:
    """``values[i]``: ``_search`` of the child after ``squares[i]`` (see _patterns.pxd),
    its indices followed from the parent's as ``_search_views`` follows them."""
    cdef int32_t mine[N_PADDED]
    cdef int32_t theirs[N_PADDED]
    cdef int32_t child_mine[N_PADDED]
    cdef int32_t child_theirs[N_PADDED]
    cdef uint64_t bit, f
    cdef int i
    _both_views(P, O, mine, theirs)
    for i in range(n):
        bit = (<uint64_t>1) << squares[i]
        f = flipped[i]
        _child_views(mine, theirs, bit, f, depth > 0, child_mine, child_theirs)
        values[i] = _search_views(weights, O & ~f, P | f | bit, child_mine, child_theirs,
                                  depth, alpha, beta, nodes)


# The functions cross from the v3 build to the portable one in a capsule whose name
# carries their signatures, so a mismatched pair of builds fails to load instead of
# crashing.
cdef const char* EVAL_CAPSULE = (
    b"cythello.eval._patterns_impl.FUNCTIONS: {int (const int16_t*, uint64_t, uint64_t); "
    b"int (const int16_t*, uint64_t, uint64_t, int, int, int, unsigned long long*); "
    b"void (const int16_t*, uint64_t, uint64_t, int, const int*, const uint64_t*, int, int, "
    b"int, int*, unsigned long long*)}")
cdef EvalFunctions FUNCTIONS
FUNCTIONS.evaluate = _evaluate
FUNCTIONS.search = _search
FUNCTIONS.children = _children


def _capsule():
    """The evaluation functions of this build (for the portable module to call)."""
    return PyCapsule_New(<void*>&FUNCTIONS, EVAL_CAPSULE, NULL)
