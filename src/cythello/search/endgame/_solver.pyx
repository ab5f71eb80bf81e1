# cython: language_level=3
"""Exact endgame solver: null-window alpha-beta (PVS) to the end of the game, in C without
the GIL.

Scores are final disc differences for the side to move, empties going to the winner (the
convention of the FFO test suite), so every final score is even.

The search (``_solver_impl.pxi``) has layers by the number of empty squares, as the fast
solvers have (Edax, Zebra, Egaroucid):

* 1 empty: no move is made; the score follows from counting the discs the last disc
  flips, four table lookups (one per line through the square).
* 2-4 empties: no move generation; a square is tried only if it touches an opponent
  disc; isolated empties (no empty neighbour) first (parity); from 4 the stability cutoff.
* 5 to TT_EMPTIES - 1: move generation, isolated empties first, stability cutoff.
* TT_EMPTIES and more: a transposition table (bounds and best move, kept between solves;
  to NEAR_MAX_EMPTIES a small one of each thread's own, which stays in its core's cache),
  the stored best move first, then the others fastest-first (fewest replies for the
  opponent, corners counted twice, then fewest squares next to the mover's discs),
  stability cutoff, and enhanced transposition cutoffs (the children's bounds).

Only the principal variation is searched with an open window; every other node is a
null-window test ("is the score above alpha?").  A search can be bounded by a node count,
a monotonic deadline or a stop flag; it then reports that it was aborted and its score
means nothing.
"""
from libc.stdint cimport uint64_t


from cythello.core._platform cimport cy_store_flag
from cythello.core._board cimport Board
from cythello.eval._patterns cimport (
    PatternWeights, children_function, evaluator_function, searcher_function,
)

include "_solver_impl.pxi"


cdef void _set_evaluator(Context* ctx, PatternWeights weights):
    """The search's evaluation functions for ``weights`` (None: none, the moves ordered
    by mobility alone and no selective cuts)."""
    if weights is None:
        ctx.eval_weights = NULL
        ctx.evaluate = NULL
        ctx.eval_tail = NULL
        ctx.eval_children = NULL
    else:
        ctx.eval_weights = weights.table
        ctx.evaluate = evaluator_function()
        ctx.eval_tail = searcher_function()
        ctx.eval_children = children_function()

from cythello.core._cpu cimport v3_function
from cythello.errors import PlayerBusyError, SettingsError
from cythello._checks import physical_memory
from cythello._cores import resolve_threads
from cythello.search.settings import MAX_THREADS as _MAX_THREADS, check_int, check_number

# The search entry point, from the x86-64-v3 build where the CPU runs it.
ctypedef int (*run_fn)(Context* ctx, uint64_t P, uint64_t O, int alpha, int beta,
                       int empties, int* best_move, int threads) noexcept nogil
cdef void* _fast = v3_function(__file__, "cythello.search.endgame._solver_v3", RUN_CAPSULE)
cdef run_fn RUN = <run_fn>_fast if _fast != NULL else _run
SOLVER_BUILD = "portable" if _fast == NULL else "x86-64-v3"


# The selective passes of the classic engines (Edax's levels of selectivity): Multi-ProbCut
# widths t in standard deviations, with the certainty each is known by, in percent.
SELECTIVE_PASSES = ((1.1, 73), (1.5, 87), (2.0, 95), (2.6, 98), (3.3, 99))


def certainty_of(t):
    """How sure a selective pass of Multi-ProbCut width ``t`` is of each cut, in percent:
    the classic engines' figure for their widths (SELECTIVE_PASSES), else the normal
    distribution's two-sided share within t sigmas, below 100 for any finite t."""
    from math import erf, sqrt
    for width, percent in SELECTIVE_PASSES:
        if abs(t - width) < 1e-9:
            return percent
    return min(99, int(100 * erf(t / sqrt(2))))


cdef int _width_tenths(double t) noexcept:
    """A pass's width as its table entries carry it (exact: EXACT_WIDTH, above any)."""
    return EXACT_WIDTH if t <= 0 else min(EXACT_WIDTH - 1, <int>(t * 10 + 0.5))


def _check_table_fits(bits, size):
    """Refuse, before anything is allocated, a table of more than half the machine's
    memory (as Edax and Stockfish size their hash up front): its pages would be committed
    inside the first deep solves, and past the memory there is only swapping or a kill."""
    memory = physical_memory()
    if memory and size > memory // 2:
        most = bits                         # each bit less halves the table
        while most > 10 and size >> (bits - most) > memory // 2:
            most -= 1
        raise SettingsError(f"table_bits={bits} needs {size / 2**30:.1f} GiB for its table, "
                            f"more than half of this machine's {memory / 2**30:.1f} GiB: "
                            f"at most table_bits={most} here")


cdef class Solver:
    """An exact endgame solver with its own transposition table (kept between solves, so a
    second solve of a related position is cheaper; 64 MB by default, and 1 MB for each
    thread's table near the leaves).  With ``threads`` > 1, helper threads share the work
    (young brothers wait, a lock-free shared table); ``threads=0``: the cores this process
    may run on (``cythello._cores``; :attr:`threads` says how many).  One solve at a time;
    :meth:`stop` may be called from any thread, and a stop request stands until
    :meth:`clear_stop`."""

    cdef int stop_flag
    cdef Table table
    cdef Table* near                    # a small table for each thread (NULL: none yet)
    cdef bint running
    cdef readonly PatternWeights weights   # None: moves ordered by mobility alone
    cdef readonly int threads
    cdef readonly unsigned long long nodes
    cdef uint64_t root_P, root_O        # the position of the last search (the table's date)

    def __cinit__(self, table_bits=DEFAULT_TT_BITS, weights="default", threads=1):
        self.table.bits = check_int("table_bits", table_bits, 10, 28)
        self.threads = resolve_threads(check_int("threads", threads, 0, _MAX_THREADS))
        _check_table_fits(table_bits, _table_bytes(&self.table))
        self.table.buckets = NULL
        self.table.memory = NULL
        self.table.date = 0
        self.near = NULL
        if isinstance(weights, str) and weights == "default":
            from cythello.eval.weights import default_weights
            weights = default_weights()
        if weights is not None and not isinstance(weights, PatternWeights):
            raise TypeError("weights must be 'default', None or PatternWeights, not "
                            f"{type(weights).__name__}")
        self.weights = weights              # None: order by mobility alone

    def __dealloc__(self):
        _release(&self.table)
        self._release_near(self.threads)

    cdef void _release_near(self, int n) noexcept nogil:
        """Free the first ``n`` near tables and their array."""
        cdef int i
        if self.near != NULL:
            for i in range(n):
                _release(&self.near[i])
            free(self.near)
            self.near = NULL

    def stop(self):
        """Abort a running solve soon, and any later one until :meth:`clear_stop` (safe from
        any thread)."""
        cy_store_flag(&self.stop_flag, 1)

    def clear_stop(self):
        cy_store_flag(&self.stop_flag, 0)

    @property
    def table_bytes(self):
        """Memory held by the transposition tables (allocated at the first deep solve): the
        shared one, and each thread's small one."""
        if self.table.memory == NULL:
            return 0
        return _table_bytes(&self.table) + (
            self.threads * _table_bytes(&self.near[0]) if self.near != NULL else 0)

    def reserve(self, empties=TT_EMPTIES, commit=True):
        """Take the transposition table now if a solve of ``empties`` empty squares will
        use it (solves take it at the first that does): its memory is committed here, tens
        of milliseconds for the default 64 MB (up to a tenth of a second the first time in
        a process), so that the time of the solve itself measures the search.  With
        ``commit=False`` (a move too short for that) the table is mapped only, and each
        page is committed when a solve first writes it.  Returns :attr:`table_bytes`."""
        if self.table.memory == NULL and check_int("empties", empties, 0, 64) >= TT_EMPTIES:
            if self.running:
                raise PlayerBusyError("this Solver is solving in another thread")
            self.running = True             # the GIL goes while the memory is committed
            try:
                self._take_table(bool(commit))
            finally:
                self.running = False
        return self.table_bytes

    cdef void _take_table(self, bint commit=True) noexcept:
        """Allocate the tables (the caller holds ``running``), committed now with ``commit``;
        no memory: solves go without one (without the small ones: the shared one serves
        every depth)."""
        cdef int i
        with nogil:
            if not _allocate(&self.table, commit):
                return
            self.near = <Table*>calloc(self.threads, sizeof(Table))
            if self.near == NULL:
                return
            for i in range(self.threads):
                self.near[i].bits = min(NEAR_BITS, self.table.bits)
                if not _allocate(&self.near[i], commit):
                    self._release_near(i)
                    return

    def solve(self, Board board not None, alpha=-64, beta=64, node_limit=None,
              deadline=0.0, probcut=None):
        """``(score, best move, aborted)`` for the side to move.  The score is exact inside
        ``(alpha, beta)`` and a bound outside it; ``deadline`` is ``time.monotonic()``
        seconds (0: none).  A game that is over scores its final result with PASS.

        With ``probcut`` (t, in standard deviations) the search is a selective pass:
        Multi-ProbCut cuts a node when a shallow evaluation search predicts its score t
        sigmas beyond the window, so the score is the exact one only with the certainty
        :func:`certainty_of` ``(t)`` at each cut (Edax's 73 % for t = 1.1, 87 % for 1.5,
        95 % for 2, 98 % for 2.6, 99 % for 3.3)."""
        cdef int lo = check_int("alpha", alpha, -64, 63), hi = check_int("beta", beta, -63, 64)
        cdef double t = 0.0
        if probcut is not None:
            t = check_number("probcut", probcut, 0.0, 10.0, low_open=True)
        if not alpha < beta:
            raise SettingsError(f"need alpha < beta, got ({alpha}, {beta})")
        if node_limit is not None:
            check_int("node_limit", node_limit, 1, 2**63 - 1)
        cdef double until = check_number("deadline", deadline, 0, float("inf"))
        if self.running:
            raise PlayerBusyError("this Solver is solving in another thread")
        own, opp = board.position()
        cdef uint64_t P = own, O = opp
        cdef Context ctx
        cdef int best_move = PASS_MOVE, score, i, empties = 64 - count(P | O)
        self.running = True                 # before the GIL can go (the table, the search)
        try:
            if self.table.memory == NULL and empties >= TT_EMPTIES:
                self._take_table()
            # A new date for a new root position only (the first search always: no position
            # is (0, 0)): the null-window steps of one solve (and its selective passes) lean
            # on each other's deep entries, which the next step's shallow ones would
            # otherwise replace as older.
            if P != self.root_P or O != self.root_O:
                self.table.date += 1
                self.root_P = P
                self.root_O = O
            ctx.table = &self.table if self.table.memory != NULL else NULL
            ctx.near = self.near
            if self.near != NULL:
                for i in range(self.threads):
                    self.near[i].date = self.table.date
            _set_evaluator(&ctx, self.weights)
            ctx.nodes = 0
            ctx.next_check = 0
            ctx.node_limit = 0 if node_limit is None else node_limit
            ctx.deadline = until
            ctx.stop_flag = &self.stop_flag
            ctx.aborted = False
            ctx.probcut = t
            ctx.certainty = _width_tenths(t)
            with nogil:
                score = RUN(&ctx, P, O, lo, hi, empties, &best_move, self.threads)
        finally:
            self.running = False
        self.nodes = ctx.nodes
        return score, best_move, bool(ctx.aborted)

    def evaluate_at(self, Board board not None, depth):
        """The evaluation's minimax of ``board`` to ``depth`` plies, in discs for the side to
        move, as the selective passes' cuts compute it (a pass uses no depth; finished
        games score exactly).  For fitting the cuts' spread; needs the weights."""
        if self.weights is None:
            raise SettingsError("evaluate_at needs a Solver with evaluation weights")
        cdef int d = check_int("depth", depth, 0, 12), v
        own, opp = board.position()
        cdef uint64_t P = own, O = opp
        cdef Context ctx
        _set_evaluator(&ctx, self.weights)
        ctx.nodes = 0
        ctx.next_check = 0
        ctx.node_limit = 0                  # no limits: the search looks, and runs on
        ctx.deadline = 0
        ctx.stop_flag = NULL
        ctx.aborted = False
        ctx.workers = NULL
        with nogil:
            v = _eval_search(&ctx, P, O, -VALUE_INF, VALUE_INF, d)
        return v / <double>EVAL_SCALE

    def move_scores(self, Board board not None, node_limit=None, deadline=0.0):
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
