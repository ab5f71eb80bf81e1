# cython: language_level=3
"""The midgame alpha-beta search with the pattern evaluation at the leaves, in C without
the GIL: principal variation search (NegaScout) with iterative deepening (depths 1 and 2,
then two plies a step with the target's parity), a transposition table, and move ordering
by the hash move, a one-ply evaluation at the deeper nodes and mobility (the opponent's
replies, corners, potential mobility) at the shallow ones; with ``probcut``,
Multi-ProbCut (Buro 1997) prunes the null-window nodes.

Full width (the default), its score at depth d is the plain depth-d minimax of the
evaluation (the table's bounds are used only at the depth that produced them), so training
labels and book values do not depend on the speed-ups; ``reference_search`` is that plain
fixed-depth alpha-beta, kept as the yardstick its tests and benchmark compare against.

Multi-ProbCut: at a null-window node of depth d >= 3, a shallow search of depth
d' = 2*floor(d/4) + (d mod 2) (Edax's pairs: 8 -> 4, 12 -> 6) predicts the depth-d score;
when it lies ``probcut`` standard deviations beyond the window, the node is cut without the
deep search.  The spread sigma(empties, d, d') is fitted on this evaluation by
``research/probcut/fit_probcut.py`` (``_midgame_probcut.pxi``).  A selective search's table
entries are marked so that a full-width search (the shallow searches themselves) never
takes their bounds.

The last two plies are the evaluator's own search (``_leaves``): it follows the pattern
indices move by move, where a node here would read every pattern of each position afresh.

Scores are in 1/EVAL_SCALE disc for the side to move; finished games score exactly
(empties to the winner).  A pass does not use up depth, even at a leaf (a side that must
pass is valued from its opponent's turn), so the leaves of a depth-d search from a
position with e empties all have e - d empties (or the game is over).
"""
import numpy as np

from libc.stdint cimport uint8_t, uint32_t, uint64_t, int16_t, int32_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset
from libc.math cimport exp, erf, sqrt

from cythello.core._platform cimport (
    cy_monotonic, cy_load_flag, cy_store_flag, cy_thread, cy_thread_create, cy_thread_join,
)
from cythello.core._rules cimport (
    legal_moves, flips, count, first_square, final_disc_difference, PASS_MOVE,
)
from cythello.core._board cimport Board
from cythello.eval._layout cimport EVAL_SCALE, eval_fn, search_fn
from cythello.eval._patterns cimport PatternWeights, evaluator_function, searcher_function
from cythello.eval._patterns import position_arrays

cdef enum:
    INF = 1 << 20
    MAX_DEPTH = 60
    TABLE_BITS = 16           # 2 ** 16 buckets of 2 entries: 4 MB a search
    MIN_TABLE_BITS = 10
    MAX_TABLE_BITS = 24       # 1 GB: a player's table for long analyses
    ORDER_BY_EVAL = 4         # at this depth and deeper, moves are ordered by evaluation
                              # (measured: docs, "the alpha-beta search")
    MOBILITY_WEIGHT = 128       # and by the opponent's replies, at this much each
    ASPIRATION = 2 * EVAL_SCALE
    CHECK_EVERY = 4096        # nodes between looks at the clock and the stop flag
    SMP_MIN_DEPTH = 6         # shallower iterations take less than starting a thread
    HELPER_ROTATE_DEPTH = 4   # a helper turns its move orders this far from the leaves
    MAX_THREADS = 256
    LEAF_PLIES = 2            # the last plies: the evaluator's own search (see _leaves)

cdef uint64_t CORNERS = 0x8100000000000081ULL

include "_midgame_probcut.pxi"

cdef enum:
    PROBCUT_MIN_DEPTH = 3     # shallower nodes are searched full width
    MAX_PROBCUT = 10          # t beyond this cuts (almost) nothing: the search's limit


cdef struct Entry:
    # Lockless (Hyatt and Mann 2002): helper threads share the table without locks, so
    # each key word is stored XORed with a data word, and an entry torn by two writers
    # fails the check and reads as a miss instead of giving one position another's bounds.
    uint64_t key_P            # P ^ bounds
    uint64_t key_O            # O ^ meta
    uint64_t bounds           # lower (low 32 bits), upper (high 32)
    uint64_t meta             # depth, move, date, selective: a byte each


cdef struct Slot:
    # An entry as read (checked) or as it will be written.
    int32_t lower, upper      # the depth-``depth`` score lies in [lower, upper]
    uint8_t depth
    uint8_t move              # best move found, or PASS_MOVE
    uint8_t date              # the search (of a search_many batch) that wrote it
    uint8_t selective         # written by a Multi-ProbCut search: its bounds are guesses


cdef struct Context:
    const int16_t* weights
    eval_fn evaluate
    search_fn search
    unsigned long long nodes
    unsigned long long next_check  # the node count at which to look at the clock next
    Entry* table              # NULL: no table (reference search)
    int table_bits            # 2 ** table_bits buckets of 2 entries
    uint8_t date
    double deadline           # 0: none
    const int* stop           # NULL: none
    bint aborted
    double probcut            # Multi-ProbCut's t (standard deviations); 0: full width
    unsigned long long max_nodes   # 0: no node budget
    int shallow               # > 0 inside a ProbCut shallow search (searched full width)
    int rotate                # a helper thread's turn of its move orders (0: the main's)
    int root_move             # the root's best move so far: see _root_pvs


# -- the transposition table ---------------------------------------------------------------

cdef inline Entry* _bucket(Context* c, uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    return &c.table[2 * ((h ^ (h >> 29)) >> (64 - c.table_bits))]


cdef inline void _unpack(uint64_t bounds, uint64_t meta, Slot* s) noexcept nogil:
    s.lower = <int32_t><uint32_t>(bounds & 0xFFFFFFFFULL)
    s.upper = <int32_t><uint32_t>(bounds >> 32)
    s.depth = <uint8_t>meta
    s.move = <uint8_t>(meta >> 8)
    s.date = <uint8_t>(meta >> 16)
    s.selective = <uint8_t>(meta >> 24)


cdef inline bint _read(Entry* e, uint64_t P, uint64_t O, uint8_t date,
                       Slot* s) noexcept nogil:
    """Whether ``e`` holds (P, O) from search ``date``, whole; its contents into ``s``."""
    cdef uint64_t bounds = e.bounds, meta = e.meta
    if (e.key_P ^ bounds) != P or (e.key_O ^ meta) != O:
        return False
    _unpack(bounds, meta, s)
    return s.date == date


cdef inline void _write(Entry* e, uint64_t P, uint64_t O, Slot* s) noexcept nogil:
    cdef uint64_t bounds = (<uint64_t><uint32_t>s.lower) | ((<uint64_t><uint32_t>s.upper) << 32)
    cdef uint64_t meta = (<uint64_t>s.depth) | ((<uint64_t>s.move) << 8) | \
        ((<uint64_t>s.date) << 16) | ((<uint64_t>s.selective) << 24)
    e.bounds = bounds
    e.meta = meta
    e.key_P = P ^ bounds
    e.key_O = O ^ meta


cdef inline int _probe(Context* c, uint64_t P, uint64_t O, Slot* s) noexcept nogil:
    """Which entry of its bucket holds (P, O) from this search (its contents into ``s``),
    or -1."""
    cdef Entry* b = _bucket(c, P, O)
    if _read(&b[0], P, O, c.date, s):
        return 0
    if _read(&b[1], P, O, c.date, s):
        return 1
    return -1


cdef inline void _store(Context* c, uint64_t P, uint64_t O, int depth, int alpha, int beta,
                        int score, int move) noexcept nogil:
    """What a depth-``depth`` search with window (alpha, beta) found.  The first entry of a
    bucket keeps the deepest search of this date, the second takes the rest."""
    cdef Slot s, first
    cdef Entry* b = _bucket(c, P, O)
    cdef int i = _probe(c, P, O, &s)
    cdef bint found = i >= 0
    cdef uint8_t selective = _selective(c)
    if not found:
        # Which entry to take: the first's date and depth as they stand (a torn read only
        # makes a worse choice; the entries themselves stay whole).
        _unpack(b[0].bounds, b[0].meta, &first)
        if first.date != c.date or first.depth <= depth:
            b[1] = b[0]
            i = 0
        else:
            i = 1
    if not found or s.depth != depth or s.selective != selective:
        s.date, s.depth, s.selective = c.date, depth, selective
        s.lower, s.upper = -INF, INF
    if score <= alpha:
        s.upper = score if score < s.upper else s.upper
    elif score >= beta:
        s.lower = score if score > s.lower else s.lower
    else:
        s.lower = s.upper = score
    if s.lower > s.upper:
        s.lower = s.upper = score
    s.move = move
    _write(&b[i], P, O, &s)


cdef inline bint _selective(Context* c) noexcept nogil:
    """Whether the search under way cuts by Multi-ProbCut (not inside a shallow search)."""
    return c.probcut > 0 and c.shallow == 0


# -- Multi-ProbCut -------------------------------------------------------------------------

cdef inline double _sigma(int empties, int depth, int shallow) noexcept nogil:
    """The spread, in discs, of the depth-``depth`` score about the depth-``shallow`` one
    (the fitted model)."""
    return exp(PROBCUT_CONST + PROBCUT_EMPTIES * empties + PROBCUT_DEPTH * depth
               + PROBCUT_SHALLOW * shallow + PROBCUT_ODD_GAP * ((depth - shallow) & 1))


cdef bint _probcut(Context* c, uint64_t P, uint64_t O, int alpha, int beta, int depth,
                   int* value) noexcept nogil:
    """Whether a shallow search puts the depth-``depth`` score of this null-window node
    beyond (alpha, beta) with the search's confidence; if so its fail-soft bound in
    ``value``.  The side the static evaluation points to is tried."""
    cdef int shallow = 2 * (depth // 4) + (depth & 1), bound, v
    cdef int empties = 64 - count(P | O)
    cdef int margin = <int>(c.probcut * _sigma(empties, depth, shallow) * EVAL_SCALE + 0.5)
    cdef int static = _static(c, P, O)
    if static >= beta:
        bound = beta + margin
        if bound >= 64 * EVAL_SCALE:
            return False
        c.shallow += 1
        v = static if shallow == 0 else _pvs(c, P, O, bound - 1, bound, shallow)
        c.shallow -= 1
        if v >= bound:
            value[0] = beta
            return True
    else:
        bound = alpha - margin
        if bound <= -64 * EVAL_SCALE:
            return False
        c.shallow += 1
        v = static if shallow == 0 else _pvs(c, P, O, bound, bound + 1, shallow)
        c.shallow -= 1
        if v <= bound:
            value[0] = alpha
            return True
    return False


# -- the search ----------------------------------------------------------------------------

cdef inline int _static(Context* c, uint64_t P, uint64_t O) noexcept nogil:
    """The evaluation of the position as it stands (a finished game exactly): a guess for
    move ordering and for ProbCut's choice of side, not a score of the search."""
    if P == 0 or O == 0 or (P | O) == 0xFFFFFFFFFFFFFFFFULL:
        return final_disc_difference(P, O) * EVAL_SCALE
    return c.evaluate(c.weights, P, O)


cdef inline int _leaves(Context* c, uint64_t P, uint64_t O, int alpha, int beta, int depth
                        ) noexcept nogil:
    """A search of depth ``depth`` <= LEAF_PLIES, and every depth-0 score: the evaluator's
    own alpha-beta (eval/_patterns.pxd ``search``), which follows the pattern indices move
    by move instead of reading each position afresh.  Most of a search's nodes lie here,
    where a table probe, ProbCut or an ordering would cost more than it saves.  Its pass
    rule is the search's: a side that must pass is valued from its opponent's turn."""
    return c.search(c.weights, P, O, depth, alpha, beta, &c.nodes)


cdef inline bint _out_of_time(Context* c) noexcept nogil:
    # The leaf searches add many nodes at once, so the count is compared, not masked.
    if c.aborted:
        return True
    if c.nodes >= c.next_check:
        c.next_check = c.nodes + CHECK_EVERY
        if (c.stop != NULL and cy_load_flag(c.stop)) or \
                (c.deadline > 0 and cy_monotonic() >= c.deadline) or \
                (c.max_nodes > 0 and c.nodes >= c.max_nodes):
            c.aborted = True
    return c.aborted


cdef int _order(Context* c, uint64_t P, uint64_t O, uint64_t moves, int depth, int hash_move,
                int* squares) noexcept nogil:
    """The moves, best first, into ``squares``; returns how many: the hash move first,
    then by :func:`_move_key` (above the leaves, corners first and no more)."""
    cdef int keys[64]
    cdef int n = 0, j, sq, key
    cdef uint64_t f, after_P, after_O
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        if sq == hash_move:
            key = -(1 << 28)
        elif depth <= 1:
            # Above the leaves a cut saves one evaluation a move: corners first, no more.
            key = -64 if (CORNERS >> sq) & 1 else 0
        else:
            f = flips(P, O, sq)
            after_P = O ^ f                           # the opponent, to move next
            after_O = P | f | ((<uint64_t>1) << sq)
            key = _move_key(c, after_P, after_O, depth, sq)
        j = n
        while j > 0 and keys[j - 1] > key:
            keys[j] = keys[j - 1]
            squares[j] = squares[j - 1]
            j -= 1
        keys[j] = key
        squares[j] = sq
        n += 1
    if c.rotate and depth >= HELPER_ROTATE_DEPTH and n > 2:
        _rotate(squares, n, c.rotate)
    return n


cdef void _rotate(int* squares, int n, int turn) noexcept nogil:
    """A helper's order: the first move (the hash move, or the best looking) stays first,
    the others turn by ``turn`` places, so that helpers take other subtrees first and
    leave their bounds in the table for the main search to find."""
    cdef int moved[64]
    cdef int i, k = turn % (n - 1)
    for i in range(n - 1):
        moved[i] = squares[1 + (i + k) % (n - 1)]
    for i in range(n - 1):
        squares[1 + i] = moved[i]


cdef inline int _move_key(Context* c, uint64_t after_P, uint64_t after_O, int depth, int sq
                          ) noexcept nogil:
    """How good a move looks from the position it reaches, the opponent to move (lower is
    better for the mover): deep in the tree the evaluation and the opponent's replies, near
    the leaves the replies (corners twice) and the mover's potential mobility."""
    cdef uint64_t replies = legal_moves(after_P, after_O), empty
    cdef int key
    if depth >= ORDER_BY_EVAL:
        return _static(c, after_P, after_O) + MOBILITY_WEIGHT * (
            count(replies) + count(replies & CORNERS))
    # Potential mobility: empty squares beside the mover's discs, which the opponent may
    # later play to.
    empty = ~(after_P | after_O)
    key = 16 * (count(replies) + count(replies & CORNERS)) + count(
        empty & (((after_O << 1) & 0xFEFEFEFEFEFEFEFEULL)
                 | ((after_O >> 1) & 0x7F7F7F7F7F7F7F7FULL)
                 | (after_O << 8) | (after_O >> 8)))
    if (CORNERS >> sq) & 1:
        key -= 64
    return key


cdef int _pvs(Context* c, uint64_t P, uint64_t O, int alpha, int beta, int depth
              ) noexcept nogil:
    """Fail-soft principal variation search of depth ``depth``."""
    cdef uint64_t moves, f
    cdef int squares[64]
    cdef int n, i, v, best = -INF, best_move = PASS_MOVE, sq, hash_move = PASS_MOVE
    cdef int alpha_in
    cdef Slot e
    if depth <= LEAF_PLIES:
        return _leaves(c, P, O, alpha, beta, depth)
    c.nodes += 1
    if _out_of_time(c):
        return 0
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        return -_pvs(c, O, P, -beta, -alpha, depth)
    if _probe(c, P, O, &e) >= 0:
        hash_move = e.move
        # A guess of a selective search is no bound for a full-width one.
        if e.depth == depth and (_selective(c) or not e.selective):
            if e.lower >= beta or e.lower == e.upper:
                return e.lower
            if e.upper <= alpha:
                return e.upper
            if e.lower > alpha:
                alpha = e.lower
            if e.upper < beta:
                beta = e.upper
    if beta == alpha + 1 and depth >= PROBCUT_MIN_DEPTH and _selective(c) and \
            depth < 64 - count(P | O) and _probcut(c, P, O, alpha, beta, depth, &v):
        return v
    # The window as the table narrowed it: what the result says is relative to it.
    alpha_in = alpha
    n = _order(c, P, O, moves, depth, hash_move, squares)
    for i in range(n):
        sq = squares[i]
        f = flips(P, O, sq)
        if i == 0:
            v = -_pvs(c, O ^ f, P | f | ((<uint64_t>1) << sq), -beta, -alpha, depth - 1)
        else:
            v = -_pvs(c, O ^ f, P | f | ((<uint64_t>1) << sq), -alpha - 1, -alpha, depth - 1)
            if alpha < v < beta:
                v = -_pvs(c, O ^ f, P | f | ((<uint64_t>1) << sq), -beta, -v, depth - 1)
        if c.aborted:
            return 0
        if v > best:
            best = v
            best_move = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    _store(c, P, O, depth, alpha_in, beta, best, best_move)
    return best


cdef int _root_pvs(Context* c, uint64_t P, uint64_t O, int alpha, int beta, int depth
                   ) noexcept nogil:
    """:func:`_pvs` of the root, which also keeps ``c.root_move`` up to date for an
    iteration that time or a stop cuts short: when the first move searched is
    ``c.root_move`` (the last iteration's best), each later move that fails high over the
    best so far takes its place, so that the deeper search's finding is played even
    unfinished.  The root takes no bound from the table, only its move."""
    cdef uint64_t moves = legal_moves(P, O), f, after_P, after_O
    cdef int squares[64]
    cdef int n, i, v, best = -INF, best_move = PASS_MOVE, sq, hash_move = PASS_MOVE
    cdef int alpha_in = alpha
    cdef bint tracking
    cdef Slot e
    if moves == 0 or depth == 0:
        return _pvs(c, P, O, alpha, beta, depth)
    c.nodes += 1
    if _out_of_time(c):
        return 0
    if _probe(c, P, O, &e) >= 0:
        hash_move = e.move
    n = _order(c, P, O, moves, depth, hash_move, squares)
    tracking = squares[0] == c.root_move
    for i in range(n):
        sq = squares[i]
        f = flips(P, O, sq)
        after_P = O ^ f
        after_O = P | f | ((<uint64_t>1) << sq)
        if i == 0:
            v = -_pvs(c, after_P, after_O, -beta, -alpha, depth - 1)
        else:
            v = -_pvs(c, after_P, after_O, -alpha - 1, -alpha, depth - 1)
            if c.aborted:
                return 0
            if alpha < v < beta:
                v = -_pvs(c, after_P, after_O, -beta, -v, depth - 1)
                if c.aborted:
                    # Its null-window search proved it better than the moves before it.
                    if tracking:
                        c.root_move = sq
                    return 0
            if tracking and v > alpha:
                c.root_move = sq
        if c.aborted:
            return 0
        if v > best:
            best = v
            best_move = sq
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    _store(c, P, O, depth, alpha_in, beta, best, best_move)
    return best


cdef int _root(Context* c, uint64_t P, uint64_t O, int depth, int guess, bint aspire,
               int* move) noexcept nogil:
    """A depth-``depth`` search of the root, with an aspiration window around ``guess``
    when ``aspire`` (widened to the full window when the score falls outside it)."""
    cdef int alpha = -INF, beta = INF, v
    if aspire:
        alpha, beta = guess - ASPIRATION, guess + ASPIRATION
    while True:
        v = _root_pvs(c, P, O, alpha, beta, depth)
        if c.aborted:
            return 0
        if v <= alpha and alpha > -INF:
            alpha = -INF
        elif v >= beta and beta < INF:
            beta = INF
        else:
            break
    move[0] = _best_move(c, P, O)
    return v


cdef int _best_move(Context* c, uint64_t P, uint64_t O) noexcept nogil:
    """The root's move from the table (PASS_MOVE when the side to move must pass)."""
    cdef Slot e
    if legal_moves(P, O) == 0:
        return PASS_MOVE
    return e.move if _probe(c, P, O, &e) >= 0 else PASS_MOVE


cdef struct Iteration:
    int score
    int move
    unsigned long long nodes  # searched so far, this iteration included
    double finished           # cy_monotonic() when it finished


cdef inline int _next_depth(int done, int deepest) noexcept nogil:
    """The depth of the iteration after one of depth ``done`` (0: none yet) on the way
    to ``deepest``: 1 and 2, then two plies a step with the parity of ``deepest`` (as
    Edax deepens), so that each iteration's aspiration window is centred on a score of
    the same parity (the evaluation swings with the side that moved last) and the
    iterations of the other parity, which would only order the next one, are not
    searched; ``done + 1`` once ``deepest`` is done."""
    if done >= deepest or done < 2 or (deepest - done) & 1:
        return done + 1
    return done + 2           # even distance left: deepest itself or short of it


cdef int _deepen(Context* c, uint64_t P, uint64_t O, int max_depth, int* move, int* reached,
                 Iteration* log=NULL) noexcept nogil:
    """Iterative deepening to ``max_depth`` (the depths of :func:`_next_depth`), or
    until the clock or the stop flag ends it: the score and move of the deepest iteration
    that finished (``reached`` its depth); each finished iteration ``d`` into ``log[d]``
    when given."""
    cdef int d = 0, v, score = 0, m = PASS_MOVE
    cdef double deadline = c.deadline
    cdef const int* stop = c.stop
    reached[0] = 0
    move[0] = PASS_MOVE
    if max_depth == 0:
        return _leaves(c, P, O, -INF, INF, 0)
    while True:
        d = _next_depth(d, max_depth)
        if d > max_depth:
            break
        # Depth 1 always finishes (microseconds): a result always has a move.
        if d == 1:
            c.deadline = 0.0
            c.stop = NULL
        else:
            c.deadline = deadline
            c.stop = stop
        c.root_move = m
        v = _root(c, P, O, d, score, d >= 3, &m)
        if c.aborted:
            break
        score, move[0], reached[0] = v, m, d
        if log != NULL:
            log[d].score, log[d].move, log[d].nodes = v, m, c.nodes
            log[d].finished = cy_monotonic()
    c.deadline = deadline
    c.stop = stop
    return score


cdef int _reference(Context* c, uint64_t P, uint64_t O, int alpha, int beta, int depth,
                    int* best_move) noexcept nogil:
    """Plain fixed-depth alpha-beta (no table, no deepening), the yardstick."""
    cdef uint64_t moves, f
    cdef int squares[64]
    cdef int n, i, v, best = -INF, child_move
    c.nodes += 1
    best_move[0] = PASS_MOVE
    moves = legal_moves(P, O)
    if moves == 0:
        if legal_moves(O, P) == 0:
            return final_disc_difference(P, O) * EVAL_SCALE
        return -_reference(c, O, P, -beta, -alpha, depth, &child_move)
    if depth == 0:            # after the pass: a pass uses no depth, even here
        return _static(c, P, O)
    # Mobility order, never the evaluation's (as 0.3.0's search ordered).
    n = _order(c, P, O, moves, min(depth, ORDER_BY_EVAL - 1), PASS_MOVE, squares)
    for i in range(n):
        f = flips(P, O, squares[i])
        v = -_reference(c, O ^ f, P | f | ((<uint64_t>1) << squares[i]), -beta, -alpha,
                        depth - 1, &child_move)
        if v > best:
            best = v
            best_move[0] = squares[i]
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


# -- Python entry points -------------------------------------------------------------------

cdef int _check_depth(object depth) except -1:
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 0-{MAX_DEPTH}, not {depth}")
    return depth


cdef double _check_probcut(object probcut) except -1:
    """Multi-ProbCut's t from the argument (None: full width)."""
    if probcut is None:
        return 0.0
    if isinstance(probcut, bool) or not isinstance(probcut, (int, float)):
        raise TypeError(f"probcut must be a number or None, not {type(probcut).__name__}")
    if not 0 < probcut <= MAX_PROBCUT:
        raise ValueError(f"probcut must be more than 0 and at most {MAX_PROBCUT} standard "
                         f"deviations (None: full width), not {probcut!r}")
    return probcut


def probcut_probability(probcut):
    """How sure Multi-ProbCut with this ``probcut`` (t, in standard deviations) is of each
    cut: the normal's two-sided probability, as Edax states its selectivity (t = 1.1 is
    73 %, 1.5 is 87 %, 2.0 is 95 %); 1.0 for a full-width search (None)."""
    return _probability(_check_probcut(probcut))


cdef inline double _probability(double t) noexcept nogil:
    """Multi-ProbCut's two-sided confidence for ``t`` (1.0 for 0: full width)."""
    return 1.0 if t == 0 else erf(t / sqrt(2.0))


def probcut_sigma(empties, depth, shallow):
    """The fitted spread, in discs, of a depth-``depth`` score about the depth-``shallow``
    score of a position with ``empties`` empty squares."""
    return _sigma(empties, depth, shallow)


# Tables kept between searches (taken and given back under the GIL): a new 4 MB table a
# search would cost more than a shallow search itself (its pages fault in as they are
# touched).  A table's date moves on with each search, so old entries read as misses.
cdef enum:
    SPARE_TABLES = 4
cdef Entry* _spare[SPARE_TABLES]
cdef uint8_t _spare_date[SPARE_TABLES]
cdef int _spares = 0


cdef int _open(Context* c, PatternWeights weights, bint table,
               int table_bits=TABLE_BITS) except -1:
    """Ready ``c`` for a search; with ``table``, a table of its own of ``table_bits``
    (:func:`_close` gives it back; the spare ones are of the default size)."""
    global _spares
    c.weights = weights.table
    c.evaluate = evaluator_function()
    c.search = searcher_function()
    c.nodes = c.next_check = 0
    c.date = 1
    c.deadline = 0.0
    c.stop = NULL
    c.aborted = False
    c.probcut = 0.0
    c.shallow = 0
    c.rotate = 0
    c.root_move = PASS_MOVE
    c.max_nodes = 0
    c.table = NULL
    c.table_bits = table_bits
    if not table:
        return 0
    if _spares > 0 and table_bits == TABLE_BITS:
        _spares -= 1
        c.table = _spare[_spares]
        c.date = _spare_date[_spares]
        _next_date(c)
    else:
        c.table = <Entry*>calloc(<size_t>2 << table_bits, sizeof(Entry))
        if c.table == NULL:
            raise MemoryError(f"no memory for the midgame search's table "
                              f"({(2 << table_bits) * sizeof(Entry) >> 20} MB)")
    return 0


cdef void _close(Context* c) noexcept:
    """Give the table back (kept for the next search, or freed when enough are kept)."""
    global _spares
    if c.table == NULL:
        return
    if _spares < SPARE_TABLES and c.table_bits == TABLE_BITS:
        _spare[_spares] = c.table
        _spare_date[_spares] = c.date
        _spares += 1
    else:
        free(c.table)
    c.table = NULL


cdef int _leaf_move(Context* c, uint64_t P, uint64_t O, int depth) noexcept nogil:
    """The best move by a depth-``depth`` search of the leaf plies, which leave no moves in
    the table (PASS_MOVE when there are no moves); its nodes are not counted."""
    cdef uint64_t moves = legal_moves(P, O), f
    cdef unsigned long long uncounted = 0
    cdef int sq, v, best = -INF, best_move = PASS_MOVE
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        f = flips(P, O, sq)
        v = -c.search(c.weights, O ^ f, P | f | ((<uint64_t>1) << sq), depth - 1, -INF, INF,
                      &uncounted)
        if v > best:
            best, best_move = v, sq
    return best_move


cdef list _principal_variation(Context* c, uint64_t P, uint64_t O, int first, int depth):
    """The moves from the table that follow ``first`` (at most ``depth`` in all), the last
    plies' from a search of them (the table has none)."""
    cdef list line = []
    cdef int move = first, plies = 0
    cdef uint64_t f, t
    while move != PASS_MOVE and plies < depth:
        if not (legal_moves(P, O) >> move) & 1:
            break
        line.append(move)
        f = flips(P, O, move)
        P, O = O ^ f, P | f | ((<uint64_t>1) << move)
        plies += 1
        if legal_moves(P, O) == 0:
            if legal_moves(O, P) == 0:
                break
            line.append(PASS_MOVE)
            t = P
            P = O
            O = t
        move = _best_move(c, P, O)
        if move == PASS_MOVE and 0 < depth - plies <= LEAF_PLIES:
            move = _leaf_move(c, P, O, depth - plies)
    return line


def search(Board board not None, depth, PatternWeights weights not None, probcut=None):
    """``(score in discs, best move, nodes)`` of a depth-``depth`` search with the
    evaluation at the leaves, for the side to move (best move PASS when it must pass or
    the game is over): the plain depth-``depth`` minimax score, found by iterative
    deepening with PVS and a transposition table; with ``probcut`` (Multi-ProbCut's t),
    the selective search's score instead."""
    cdef int d = _check_depth(depth), move = PASS_MOVE, score, reached
    cdef double t = _check_probcut(probcut)
    own, opp = board.position()
    cdef uint64_t P = own, O = opp
    cdef Context c
    _open(&c, weights, True)
    c.probcut = t
    try:
        with nogil:
            score = _deepen(&c, P, O, d, &move, &reached)
    finally:
        _close(&c)
    return score / <double>EVAL_SCALE, move, c.nodes


def reference_search(Board board not None, depth, PatternWeights weights not None):
    """:func:`search` by a plain fixed-depth alpha-beta (no table, no deepening, moves
    ordered by mobility): the same score, many more nodes.  For tests and benchmarks."""
    cdef int d = _check_depth(depth), move = PASS_MOVE, score
    own, opp = board.position()
    cdef uint64_t P = own, O = opp
    cdef Context c
    _open(&c, weights, False)
    with nogil:
        score = _reference(&c, P, O, -INF, INF, d, &move)
    return score / <double>EVAL_SCALE, move, c.nodes


def deepen(Board board not None, PatternWeights weights not None, max_depth=MAX_DEPTH,
           seconds=None, probcut=None):
    """Iterative deepening (depths 1 and 2, then two plies a step with the parity of
    ``max_depth``) until ``max_depth`` or ``seconds``: a dict of the deepest
    iteration that finished (``depth``; its ``score`` in discs, ``move`` and principal
    variation ``pv``), the ``nodes`` searched in all, the ``elapsed`` seconds,
    ``iterations``, one ``(depth, score, move, nodes, seconds)`` for each iteration that
    finished (nodes and seconds counted from the start), and the search's ``probability``
    (1.0 full width, less with ``probcut``: see :func:`probcut_probability`).  The
    iteration under way when time runs out is abandoned."""
    cdef int d = _check_depth(max_depth), move = PASS_MOVE, score, reached, i
    cdef double t = _check_probcut(probcut)
    cdef Iteration log[MAX_DEPTH + 1]
    own, opp = board.position()
    cdef uint64_t P = own, O = opp
    cdef Context c
    cdef double start = cy_monotonic()
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError(f"seconds must be a number, not {type(seconds).__name__}")
        if not 0 < seconds < 1e9:
            raise ValueError(f"seconds must be more than 0, not {seconds!r}")
    _open(&c, weights, True)
    c.probcut = t
    if seconds is not None:
        c.deadline = start + seconds
    try:
        with nogil:
            score = _deepen(&c, P, O, d, &move, &reached, log)
        pv = _principal_variation(&c, P, O, move, reached) if reached else []
    finally:
        _close(&c)
    iterations = []
    i = _next_depth(0, d)
    while i <= reached:
        iterations.append((i, log[i].score / <double>EVAL_SCALE, log[i].move, log[i].nodes,
                           log[i].finished - start))
        i = _next_depth(i, d)
    return {"depth": reached, "score": score / <double>EVAL_SCALE, "move": move, "pv": pv,
            "nodes": c.nodes, "elapsed": cy_monotonic() - start, "iterations": iterations,
            "probability": probcut_probability(probcut)}


def search_many(own, opp, depth, PatternWeights weights not None, probcut=None):
    """The depth-``depth`` search score (in discs) of many positions (uint64 arrays of the
    side to move's and the opponent's discs), without the GIL; with ``probcut``
    (Multi-ProbCut's t), the selective search's scores."""
    cdef double t = _check_probcut(probcut)
    own, opp = position_arrays(own, opp)
    cdef const uint64_t[::1] P = own
    cdef const uint64_t[::1] O = opp
    cdef int d = _check_depth(depth), move, reached
    out = np.empty(P.shape[0], dtype=np.float64)
    cdef double[::1] res = out
    cdef Py_ssize_t i, n = P.shape[0]
    cdef Context c
    _open(&c, weights, True)
    c.probcut = t
    try:
        with nogil:
            for i in range(n):
                _next_date(&c)          # the last position's entries are stale
                res[i] = _deepen(&c, P[i], O[i], d, &move, &reached) / <double>EVAL_SCALE
    finally:
        _close(&c)
    return out


cdef void _next_date(Context* c) noexcept nogil:
    """A new search's date: the table's older entries read as misses from now on (and are
    cleared when the 8-bit date wraps round, so that none is taken for a new one)."""
    c.date = <uint8_t>(c.date + 1)
    if c.date == 0:
        # All zero: no entry's check holds (nor does date 0 ever match a search's).
        memset(c.table, 0, (<size_t>2 << c.table_bits) * sizeof(Entry))
        c.date = 1


# -- lazy SMP ---------------------------------------------------------------------------------

cdef struct Helper:
    # A thread that searches the root beside the main one, sharing its table (lazy SMP):
    # what it stores there orders and cuts the main search.  It searches the same depth
    # (a bound is shared only at the depth that made it) with its move orders turned
    # (``Context.rotate``), so that it takes other subtrees first.
    Context c
    uint64_t P, O
    int depth
    int guess
    cy_thread thread


cdef void _help(void* arg) noexcept nogil:
    """A helper's work: iterative deepening of the root from its depth, until its stop
    (two plies a step, as the main search deepens: :func:`_next_depth`)."""
    cdef Helper* h = <Helper*>arg
    cdef int d = h.depth, m = PASS_MOVE, v
    while d <= MAX_DEPTH:
        v = _root(&h.c, h.P, h.O, d, h.guess, d >= 3, &m)
        if h.c.aborted:
            break
        h.guess = v
        d += 2


cdef class MidgameSearch:
    """An iterative-deepening search run one iteration at a time, for a player that
    reports each depth, stops from another thread and keeps its table between searches.

    Its transposition table has ``2 ** table_bits`` buckets of two 32-byte entries
    (16: 4 MB; each bit more doubles it).  :meth:`begin` sets the root (a new date for the table unless ``keep``: a search that
    follows pondering on the position before it keeps what pondering found);
    :meth:`iterate` searches the root to one more depth within a deadline and a node
    budget; :meth:`stop` (any thread) ends the iteration under way, and stands until
    :meth:`clear_stop`.  With ``threads`` > 1, iterations of depth 6 and more are searched
    by lazy SMP: helper threads search the same root, sharing the table (whose entries
    are lockless), and the main thread's result stands; the node count includes the
    helpers' nodes, the node budget counts the main thread's.  Results then vary from run
    to run, as the threads race."""
    cdef Context c
    cdef PatternWeights weights
    cdef int stop_flag
    cdef int helper_stop
    cdef readonly int threads
    cdef uint64_t P, O
    cdef readonly int depth           # the deepest iteration finished since begin()
    cdef readonly double score        # its score (discs) and move
    cdef readonly int move
    cdef readonly int improved        # the unfinished depth that changed ``move``, or 0

    def __cinit__(self, PatternWeights weights not None, table_bits=TABLE_BITS, threads=1):
        if isinstance(table_bits, bool) or not isinstance(table_bits, int) or \
                not MIN_TABLE_BITS <= table_bits <= MAX_TABLE_BITS:
            raise ValueError(f"table_bits must be an int from {MIN_TABLE_BITS} to "
                             f"{MAX_TABLE_BITS}, not {table_bits!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or \
                not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be an int from 1 to {MAX_THREADS}, "
                             f"not {threads!r}")
        self.threads = threads
        self.weights = weights
        _open(&self.c, weights, True, table_bits)
        self.stop_flag = 0
        self.c.stop = &self.stop_flag
        self.depth, self.score, self.move = 0, 0.0, PASS_MOVE
        self.improved = 0

    def __dealloc__(self):
        _close(&self.c)

    def begin(self, Board board not None, probcut=None, keep=False):
        """Search ``board`` from now on (its side to move), with Multi-ProbCut's
        ``probcut`` (None: full width)."""
        self.c.probcut = _check_probcut(probcut)
        own, opp = board.position()
        self.P, self.O = own, opp
        if not keep:
            _next_date(&self.c)
        self.depth, self.score, self.move = 0, _leaves(&self.c, self.P, self.O, -INF, INF,
                                                       0) / <double>EVAL_SCALE, PASS_MOVE
        self.c.nodes = self.c.next_check = 0
        self.improved = 0

    def iterate(self, depth, seconds=None, max_nodes=None):
        """Search the root to ``depth`` (an aspiration window around the last score):
        True when it finished, False when the deadline (``seconds`` from now), the node
        budget (nodes since :meth:`begin`) or a stop ended it first: the last finished
        depth's score and line stand, but its move gives way to one the unfinished
        iteration proved better (a later root move that failed high over it;
        ``improved`` then names that depth).  Depth 1 always finishes."""
        cdef int d = _check_depth(depth), v, m = PASS_MOVE
        cdef int guess = <int>(self.score * EVAL_SCALE)
        if d < 1:
            raise ValueError("an iteration searches depth 1 or more")
        if seconds is not None and (isinstance(seconds, bool) or
                                    not isinstance(seconds, (int, float)) or seconds < 0):
            raise ValueError(f"seconds must be a number of seconds, not {seconds!r}")
        if max_nodes is not None and (isinstance(max_nodes, bool) or
                                      not isinstance(max_nodes, int) or max_nodes < 0):
            raise ValueError(f"max_nodes must be a count of nodes, not {max_nodes!r}")
        if d > 1 and cy_load_flag(&self.stop_flag):
            return False                           # stopped before it began
        self.c.aborted = False
        self.c.root_move = self.move
        if d == 1:                                 # a result always has a move
            self.c.deadline, self.c.max_nodes, self.c.stop = 0.0, 0, NULL
        else:
            self.c.deadline = 0.0 if seconds is None else cy_monotonic() + seconds
            self.c.max_nodes = 0 if max_nodes is None else max(1, max_nodes)
            self.c.stop = &self.stop_flag
        cdef int k, started = 0, n = self.threads - 1 if d >= SMP_MIN_DEPTH else 0
        cdef Helper* helpers = NULL
        if n > 0:
            helpers = <Helper*>malloc(n * sizeof(Helper))
            if helpers == NULL:
                raise MemoryError("no memory for the search's helper threads")
            cy_store_flag(&self.helper_stop, 0)
            for k in range(n):
                helpers[k].c = self.c
                helpers[k].c.nodes, helpers[k].c.max_nodes = 0, 0
                helpers[k].c.next_check = 0
                helpers[k].c.stop = &self.helper_stop
                helpers[k].P, helpers[k].O = self.P, self.O
                helpers[k].c.rotate = k + 1
                helpers[k].depth, helpers[k].guess = d, guess
        try:
            with nogil:
                for k in range(n):
                    if cy_thread_create(&helpers[k].thread, _help, &helpers[k]) != 0:
                        break                      # fewer helpers: still a search
                    started += 1
                v = _root(&self.c, self.P, self.O, d, guess, d >= 3, &m)
                cy_store_flag(&self.helper_stop, 1)
                for k in range(started):
                    cy_thread_join(helpers[k].thread)
            for k in range(started):
                self.c.nodes += helpers[k].c.nodes
        finally:
            free(helpers)
        self.c.stop = &self.stop_flag
        if self.c.aborted:
            if self.c.root_move != self.move and self.c.root_move != PASS_MOVE:
                self.move = self.c.root_move       # proved better by the unfinished depth
                self.improved = d
            return False
        self.depth, self.score, self.move = d, v / <double>EVAL_SCALE, m
        self.improved = 0
        return True

    def next_depth(self, deepest):
        """The depth of the iteration to search after the deepest finished one, on the
        way to ``deepest`` or the root's empties, whichever is fewer: 1 and 2, then two
        plies a step with that depth's parity; one more than it once it is done."""
        cdef int d = _check_depth(deepest)
        cdef int empties = 64 - count(self.P | self.O)
        return _next_depth(self.depth, d if d < empties else empties)

    def principal_variation(self):
        """The moves of the deepest finished iteration's line, from the table."""
        if self.depth == 0:
            return []
        return _principal_variation(&self.c, self.P, self.O, self.move, self.depth)

    @property
    def nodes(self):
        """Nodes searched since :meth:`begin`."""
        return self.c.nodes

    @property
    def probability(self):
        """How sure each cut of the search is (1.0: full width)."""
        return _probability(self.c.probcut)

    def stop(self):
        """End the iteration under way soon (from any thread); it stands until
        :meth:`clear_stop`."""
        cy_store_flag(&self.stop_flag, 1)

    def clear_stop(self):
        cy_store_flag(&self.stop_flag, 0)
